#pragma once

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>

namespace opevo::ui::graphviz {

// Graphviz is not re-entrant: every layout in the process holds this.
std::mutex& mutex();
// One context for the process, never freed: Graphviz 2.42 keeps a font cache across contexts,
// and freeing one leaves that cache pointing at freed memory (AddressSanitizer finds it in the
// pango plugin on the second layout). Call with the mutex held.
GVC_t* context();
// A default attribute of the graph's nodes, edges or graph (kind AGNODE, AGEDGE, AGRAPH).
void setDefault(Agraph_t* g, int kind, const char* name, const char* value);

}  // namespace opevo::ui::graphviz
