#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/network.h"

namespace opevo::net {

// Parameter values that replace a network file's defaults ("batch" -> 8).
using ParamOverrides = std::map<std::string, std::int64_t>;

// The overrides back from their stored text (NetworkRecord::paramsJson, a JSON object of whole
// numbers). Throws InputError, prefixed with `where`, for anything else.
ParamOverrides paramsFromJson(const std::string& text, const std::string& where);

// A network file (docs/networks.md): name, params, inputs, layers, output. Integer fields may name
// a param instead ("batch"). Shapes are inferred and checked, batch_norms after convolutions are
// folded (unless foldNorms is false: the reference computes the network as written). Throws
// InputError naming the source, the layer and the field at fault. A layer nobody reads is kept
// (stored runs and archives hold such networks); a new load adds requireEveryLayerRead.
Network networkFromJson(const nlohmann::json& j, const std::string& source,
                        const ParamOverrides& overrides = {}, bool foldNorms = true);

// networkFromJson of a network file's text; text that is not JSON is an InputError naming source.
Network networkFromText(const std::string& text, const std::string& source,
                        const ParamOverrides& overrides = {}, bool foldNorms = true);

// The presets shipped in resources/networks/ (compiled into the program).
struct NetworkPreset {
  std::string name;
  std::string text;  // the JSON file
};
const std::vector<NetworkPreset>& networkPresets();

// A preset name or a path to a network file; "name:param=value,..." is not accepted: overrides
// come separately. Throws InputError listing the presets when neither exists, and when both do (a
// file of a preset's name in the current folder: ./NAME takes the file). A layer nobody reads is
// kept, as networkFromText keeps it: the libtorch reference loads a stored run's network this way.
Network loadNetwork(const std::string& presetOrPath, const ParamOverrides& overrides = {},
                    bool foldNorms = true);

// The JSON text of a preset or a network file (what a stored network run keeps).
std::string networkText(const std::string& presetOrPath);

// "batch=8" -> {"batch", 8}; throws InputError on anything else.
std::pair<std::string, std::int64_t> parseParamOverride(const std::string& text);

}  // namespace opevo::net
