#pragma once

#include <optional>
#include <string>
#include <string_view>

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
  bool operator==(const TaskTemplates&) const = default;
  // "direct", "winograd", "matvec" or "winograd+matvec": what commands take and print (plans
  // store "template": "winograd" and "matvec": true, net/network_plan.h).
  std::string name() const;
};
// The inverse of TaskTemplates::name, also taking "winograd,matvec"; InputError naming `where`
// (when not empty).
TaskTemplates parseTaskTemplates(const std::string& text, const std::string& where);

// The templates a new network run on `backend` takes when none is asked for. On the GPUs (cuda,
// hip) the matrix-vector one for the dense layers it applies to: measured on the H200, AlexNet's
// fc layers ran at 1.29-1.82x cuBLAS there against 0.39-0.56x on the direct template, the network
// 0.484 ms against 0.631 (docs/networks.md). The CPU keeps the direct ones; Winograd's stays asked
// for everywhere (not measured on a whole network yet). One place for the CLI and the window.
TaskTemplates defaultTaskTemplates(std::string_view backend);
// A new run's templates: `asked` (parseTaskTemplates's text) exactly as given, so "direct" is the
// direct templates on any backend and "winograd" leaves the dense layers direct; none asked,
// defaultTaskTemplates(backend). A stored run keeps its plan's (net/network_plan.h) whatever the
// default is now.
TaskTemplates chosenTaskTemplates(const std::optional<std::string>& asked, std::string_view backend,
                                  const std::string& where);

}  // namespace opevo::net
