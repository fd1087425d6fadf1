// A separate project using the installed spkit: builds a tiny CSR and lists the kernel registry.
#include <cstdio>

#include "spkit/spkit.hpp"

int main() {
  spkit::Coo<double> coo;
  coo.rows = coo.cols = 2;
  coo.row_idx = {0, 1, 1};
  coo.col_idx = {0, 0, 1};
  coo.values = {1.0, 2.0, 3.0};
  auto csr = spkit::coo_to_csr(coo);
  std::size_t n = spkit::registry().all().size();
  std::printf("consumer: %lld rows, %lld nnz, %zu kernels\n", (long long)csr.rows, (long long)csr.nnz(), n);
  return (csr.nnz() == 3 && n > 0) ? 0 : 1;
}
