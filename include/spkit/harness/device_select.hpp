#pragma once
// Which devices a measuring run covers (spkit spmv / spgemm / bench --device, Python's device=).
#include <string>

namespace spkit::harness {

enum class DeviceSelect { cpu, gpu, all };

// "cpu", "gpu" (or "cuda"), "all"; throws spkit::Error naming the accepted words.
DeviceSelect parse_device_select(const std::string& text);

}  // namespace spkit::harness
