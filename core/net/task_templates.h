#pragma once

#include <string>

namespace opevo::net {

// The templates with spaces of their own that a network's tasks take, each where it pays, in
// place of the direct or layout template; in any mode (they read and write the plain layouts),
// the other tasks unchanged. Runs stored before a template existed had it off.
struct TaskTemplates {
  // Winograd's for the stride-1 Conv2Ds with enough tiles (winogradPays, ops/winograd_space.h).
  bool winograd = false;
  // The matrix-vector one for dense layers and products with few rows of A (matvecApplies,
  // ops/matvec_space.h): a dense layer at batch 1 reads its weights once, with no reuse for the
  // direct template's tiles (on the H200, AlexNet's fc layers ran at 0.39-0.56x cuBLAS there).
  bool matvec = false;
  bool any() const { return winograd || matvec; }
  // "direct", "winograd", "matvec" or "winograd+matvec": what commands take and print (plans
  // store "template": "winograd" and "matvec": true, net/network_plan.h).
  std::string name() const;
};
// The inverse of TaskTemplates::name, also taking "winograd,matvec"; InputError naming `where`
// (when not empty).
TaskTemplates parseTaskTemplates(const std::string& text, const std::string& where);

}  // namespace opevo::net
