#pragma once
// What a --resume keeps of a bench section's file (spgemm.json, spmm.json): its entries for matrices the
// run does not replace, in file order. A missing or unreadable file keeps nothing.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace spkit::harness {

inline nlohmann::json kept_section_entries(const std::string& json_path, const std::set<std::string>& replaced) {
  nlohmann::json kept = nlohmann::json::array();
  if (!std::filesystem::exists(json_path)) return kept;
  std::ifstream in(json_path);
  const nlohmann::json old = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (old.is_object() && old.contains("entries") && old["entries"].is_array())
    for (const auto& e : old["entries"])
      if (e.is_object() && e.contains("matrix") && e["matrix"].is_string() &&
          !replaced.count(e["matrix"].get<std::string>()))
        kept.push_back(e);
  return kept;
}

}  // namespace spkit::harness
