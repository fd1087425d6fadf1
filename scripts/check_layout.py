#!/usr/bin/env python3
"""Checks the house rules of the source tree: includes run one way between layers, and no source file is
longer than the limit. Prints every violation and exits 1 when there is one.

    python3 scripts/check_layout.py [--root DIR] [--max-lines N] [--report]

Layers, lowest first; a file may include its own module and any module listed as below it. Public headers
(include/spkit/...) belong to the module of the same name under src/.
"""
import argparse
import os
import re
import sys

# module -> modules it may include (besides itself). Everything may include "base".
ALLOWED = {
    "base": set(),
    "formats": set(),
    "io": {"formats"},
    "gen": {"formats"},
    "stats": {"formats"},
    "validate": {"formats"},
    "device": set(),
    "reorder": {"formats"},
    "kernels": {"formats", "stats", "device"},
    "select": {"kernels", "spgemm", "formats", "stats", "device"},
    "plan": {"select", "kernels", "spmm", "reorder", "formats", "stats", "device"},  # spmm: the block apply
    "spgemm": {"kernels", "formats", "stats", "device"},
    "spmm": {"select", "kernels", "reorder", "formats", "stats", "device"},  # select: SpMM auto follows the SpMV pick; reorder: the row-major kernels' RCM visiting order
    "harness": {"plan", "select", "kernels", "spgemm", "spmm", "reorder", "formats", "io", "gen", "stats", "validate",
                "device"},
}
TOP = "top"  # apps, python, tests, bench, fuzz, the umbrella header: may include anything

BASE_FILES = {"error.hpp", "config.hpp", "config.hpp.in", "precision.hpp", "precision.cpp", "registry.hpp",
              "registry.cpp", "tuning.hpp", "median.hpp"}
FILE_MODULE = {"stats.hpp": "stats", "stats.cpp": "stats", "gen.hpp": "gen", "kernel.hpp": "kernels",
               "plan.hpp": "plan", "select.hpp": "select", "spgemm.hpp": "spgemm", "spmm.hpp": "spmm",
               "validate.hpp": "validate", "validate.cpp": "validate", "device.hpp": "device", "device.cpp": "device",
               "reorder.hpp": "reorder", "spkit.hpp": TOP}
FOLDER_MODULE = {"formats": "formats", "io": "io", "gen": "gen", "kernels": "kernels", "select": "select",
                 "plan": "plan", "reorder": "reorder", "spgemm": "spgemm", "spmm": "spmm", "harness": "harness",
                 "bench": "harness",
                 "platform": "base", "util": "base"}
SOURCE_EXT = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".py")


def module_of(rel):
    """Module of a path relative to the repository root (src/..., include/spkit/...), or None."""
    parts = rel.split("/")
    if parts[0] == "src":
        rest = parts[1:]
    elif parts[:2] == ["include", "spkit"]:
        rest = parts[2:]
    else:
        return TOP
    if len(rest) == 1:
        name = rest[0]
        if name in BASE_FILES:
            return "base"
        return FILE_MODULE.get(name, "base")
    return FOLDER_MODULE.get(rest[0], rest[0])


def resolve(include, src_dir, root):
    """Repository-relative path of an include, trying the library's include roots."""
    for base in (os.path.join(root, "include"), os.path.join(root, "src"), src_dir):
        p = os.path.normpath(os.path.join(base, include))
        if os.path.exists(p):
            return os.path.relpath(p, root)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--max-lines", type=int, default=600)
    ap.add_argument("--report", action="store_true", help="also list files over 500 lines and module edges")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    problems, long_files, edges = [], [], {}
    for top in ("src", "include", "apps", "python", "tests", "bench", "fuzz", "scripts"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            if "/data" in dirpath.replace(root, "") or "__pycache__" in dirpath:
                continue
            for f in files:
                if not f.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    lines = fh.readlines()
                if len(lines) > 500:
                    long_files.append((len(lines), rel))
                if len(lines) > args.max_lines:
                    problems.append(f"{rel}: {len(lines)} lines (limit {args.max_lines})")
                mod = module_of(rel)
                if mod == TOP or f.endswith(".py"):
                    continue
                for n, line in enumerate(lines, 1):
                    m = inc_re.match(line)
                    if not m:
                        continue
                    target = resolve(m.group(1), dirpath, root)
                    if target is None:
                        continue
                    tmod = module_of(target)
                    if tmod in (mod, "base"):
                        continue
                    edges.setdefault((mod, tmod), []).append(f"{rel}:{n}")
                    if tmod not in ALLOWED.get(mod, set()):
                        problems.append(f"{rel}:{n}: {mod} includes {m.group(1)} ({tmod}), a layer it may not use")
    if args.report:
        print("files over 500 lines:")
        for n, rel in sorted(long_files, reverse=True):
            print(f"  {n:5d} {rel}")
        print("module edges (includer -> included: count):")
        for (a, b), where in sorted(edges.items()):
            print(f"  {a} -> {b}: {len(where)}")
    for p in problems:
        print(p)
    print(f"check_layout: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
