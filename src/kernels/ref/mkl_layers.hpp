#pragma once
// libmkl_rt picks its threading and interface layers at the first MKL call: every MKL comparison kernel
// chooses GNU OpenMP (the runtime spkit itself uses, so that MKL's threads and ours never oversubscribe the
// cores) and LP64 indices before that call. A static MKL (SPKIT_MKL_STATIC) has them fixed at link time
// (gf_lp64, gnu_thread) and has no such functions.
#include <mkl.h>

namespace spkit::ref {

inline void select_mkl_layers() {
#ifndef SPKIT_MKL_STATIC
  mkl_set_threading_layer(MKL_THREADING_GNU);
  mkl_set_interface_layer(MKL_INTERFACE_LP64);
#endif
}

}  // namespace spkit::ref
