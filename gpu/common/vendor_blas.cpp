#include "common/vendor_blas.h"

#include "common/column_major_gemm.h"
#include "common/device_memory.h"

namespace opevo {

std::unique_ptr<VendorBlas> VendorBlas::open(const std::vector<std::string>& candidates,
                                             const Names& names, std::string* reason) {
  std::string tried;
  auto lib = SharedLibrary::openFirst(candidates, names.create, &tried);
  if (!lib) {
    *reason = "no " + std::string(names.label) + " (tried " + tried + ")";
    return nullptr;
  }
  std::unique_ptr<VendorBlas> v(new VendorBlas);
  v->m_names = names;
  v->m_lib = std::move(lib);
  auto create = v->m_lib->symbol<int (*)(void**)>(names.create);
  v->m_destroy = v->m_lib->symbol<decltype(v->m_destroy)>(names.destroy);
  v->m_sgemm = v->m_lib->symbol<decltype(v->m_sgemm)>(names.sgemm);
  v->m_sgemmBatched = v->m_lib->symbol<decltype(v->m_sgemmBatched)>(names.sgemmBatched);
  if (!create || !v->m_destroy || !v->m_sgemm || !v->m_sgemmBatched) {
    *reason = v->m_lib->name() + " lacks " + names.sgemm + " / " + names.sgemmBatched;
    return nullptr;
  }
  if (int rc = create(&v->m_handle); rc != 0) {
    *reason = std::string(names.create) + " failed with status " + std::to_string(rc);
    v->m_handle = nullptr;
    return nullptr;
  }
  return v;
}

VendorBlas::~VendorBlas() {
  if (m_handle) m_destroy(m_handle);
}

void VendorBlas::gemm(const OperatorSpec& op, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const int rc = columnMajorSgemm(op, m_handle, m_sgemm, m_sgemmBatched, m_names.opNone,
                                  m_names.opTranspose, a, b, c);
  if (rc != 0)
    throw DeviceError(
        -1, std::string(m_names.label) + " sgemm failed with status " + std::to_string(rc));
}

std::string VendorBlas::describe() const {
  return std::string(m_names.label) + " sgemm (" + library() + ")";
}

}  // namespace opevo
