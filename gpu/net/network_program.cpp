#include "net/network_program.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "codegen/kernel_codegen.h"
#include "codegen/layout_conversion.h"
#include "codegen/winograd_transforms.h"
#include "common/error.h"
#include "layout/conv2d_layout.h"
#include "layout/operand_layouts.h"
#include "net/fixed_layer_code.h"
#include "net/network_tuning.h"
#include "net/weights.h"
#include "ops/operator_json.h"
#include "ops/presets.h"

namespace opevo::net {

std::string_view stepKindName(StepKind kind) {
  switch (kind) {
    case StepKind::Task:
      return "task";
    case StepKind::Fixed:
      return "fixed";
    case StepKind::Convert:
      return "convert";
  }
  return "?";
}

namespace {

// A task's kernel entry point; its conversions are the entry with a suffix ("task_3_pack_a").
std::string taskEntry(std::size_t task) {
  return "task_" + std::to_string(task);
}

// A layout one task takes so that another reads a tensor as it is: said in the program's
// `adopted` only if the program then drops the conversion it saves (the step of `layer` with
// that entry suffix), since the producer's plain output may still be needed elsewhere.
struct Adoption {
  std::size_t task = 0;  // the reader
  std::string layer;     // the reading occurrence's layer
  std::string suffix;    // its conversion step's entry suffix: pack_a (input), pack_c (residual)
  std::string sentence;
  // A depthwise reader's, on its producer's channel blocks: `sentence` where the producer's tiles
  // hold whole rows (or one row each), so that its layout is the reader's input layout and the
  // conversion is dropped; `blocksSentence` where they do not, and the conversion converts straight
  // from the producer's blocks into the same blocks, copying whole blocks.
  std::string blocksSentence = {};
};

// ALT's propagation to a residual's producer: a layout task whose output another layout task
// reads as its residual (a ResNet block's downsampling convolution) writes it in the reader's
// output layout, so that the residual is read as it is, with no conversion. The producer's
// output blocking (layout.out_c, out_h, out_w) is copied from the reader's configuration when
// the producer's space allows it with its own loops (its register tile must still divide the
// blocks); otherwise it keeps its own layout and the residual is converted. A producer in
// `frozen` (a link of adoptProducerLayouts depends on its output blocking) keeps it: the first
// link kept wins. The producer's kernel then runs a configuration it was not timed with: the
// end-to-end figure measures it.
std::vector<Config> adoptReaderLayouts(const TaskGraph& graph, std::vector<Config> configs,
                                       layout::TuningMode mode, TaskTemplates templates,
                                       const std::set<std::size_t>& frozen,
                                       std::vector<Adoption>* adopted) {
  const std::map<std::string, std::size_t> producer = tensorWriters(graph);
  std::vector<OperatorDefinition> defs;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i)
    defs.push_back(taskDefinitionOf(graph.tasks[i], mode, templates, configs[i]));
  for (std::size_t reader = 0; reader < graph.tasks.size(); ++reader)
    for (const Occurrence& o : graph.tasks[reader].occurrences)
      for (const std::string& residual : o.residuals) {
        const auto it = producer.find(residual);
        if (it == producer.end() || it->second == reader) continue;
        const std::size_t writer = it->second;
        const SearchSpace& from = defs[reader].space;
        const SearchSpace& to = defs[writer].space;
        Config candidate = configs[writer];
        bool same = true, fits = true;
        for (const char* name : layout::kConv2DOutputLayoutParams) {
          const int r = from.indexOf(name), w = to.indexOf(name);
          fits = fits && r >= 0 && w >= 0 &&
                 from.param(std::size_t(r)).spec() == to.param(std::size_t(w)).spec();
          if (!fits) break;
          same = same && candidate[std::size_t(w)] == configs[reader][std::size_t(r)];
          candidate[std::size_t(w)] = configs[reader][std::size_t(r)];
        }
        if (!fits || same || frozen.count(writer) || !to.satisfies(candidate)) continue;
        configs[writer] = std::move(candidate);
        adopted->push_back({reader, o.layer, "pack_c",
                            graph.tasks[writer].name + " writes its output (" + residual +
                                ") in the layout of " + graph.tasks[reader].name +
                                ", which reads it as its residual"});
      }
  return configs;
}

// The task that writes a residual occurrence `o` of task `reader` (its space `r`) reads as it is
// (another task, writing the reader's output layout: the same output blocking); nullopt where
// there is none.
std::optional<std::size_t> residualReadAsItIs(const TaskGraph& graph,
                                              const std::map<std::string, std::size_t>& producer,
                                              const std::vector<Config>& configs,
                                              layout::TuningMode mode, TaskTemplates templates,
                                              std::size_t reader, const SearchSpace& r,
                                              const Occurrence& o) {
  for (const std::string& residual : o.residuals) {
    const auto it = producer.find(residual);
    if (it == producer.end() || it->second == reader) continue;
    const std::size_t writer = it->second;
    const SearchSpace w =
        taskDefinitionOf(graph.tasks[writer], mode, templates, configs[writer]).space;
    bool same = true;
    for (const char* name : layout::kConv2DOutputLayoutParams) {
      const int ri = r.indexOf(name), wi = w.indexOf(name);
      same = same && ri >= 0 && wi >= 0 &&
             r.param(std::size_t(ri)).spec() == w.param(std::size_t(wi)).spec() &&
             configs[reader][std::size_t(ri)] == configs[writer][std::size_t(wi)];
    }
    if (same) return writer;
  }
  return std::nullopt;
}

// Whether task `writer`, unfrozen, can write the output layout of the reader's configuration `c`
// (in the reader's space `r`) with its own loops: adoptReaderLayouts would then give it that
// layout, and the residual stays read as it is.
bool canFollow(const TaskGraph& graph, const std::vector<Config>& configs, layout::TuningMode mode,
               TaskTemplates templates, const std::set<std::size_t>& frozen, std::size_t writer,
               const SearchSpace& r, const Config& c) {
  if (frozen.count(writer)) return false;
  const SearchSpace w =
      taskDefinitionOf(graph.tasks[writer], mode, templates, configs[writer]).space;
  Config follow = configs[writer];
  for (const char* name : layout::kConv2DOutputLayoutParams) {
    const int ri = r.indexOf(name), wi = w.indexOf(name);
    if (ri < 0 || wi < 0) return false;
    follow[std::size_t(wi)] = c[std::size_t(ri)];
  }
  return w.satisfies(follow);
}

// ALT's propagation to a reader: a 1x1 unpadded convolution's input layout is its producer's
// output layout once its input channels are blocked as the producer's output channels and its
// output rows and columns as the producer's output rows and columns, over the stride
// (layout::sameMapping: a stride-2 reader's window of t output rows is 2t input rows), and the
// program then passes the producer's buffer as it is, with no conversion (ResNet-50's
// bottlenecks: each block's first and last convolutions). Such a reader takes its producer's
// blocking when its space allows it with its own loops (its register tiles must still divide the
// blocks), tasks in the order their kernels first run. The first occurrence whose input another
// task writes decides, whether or not its producer's blocking fits. Both tasks of a link go into
// `frozen`, and their output blockings stay as they are from then on: a reader whose rows or
// columns another link depends on does not take new ones (a task shared by occurrences can be
// a producer before it is a reader), nor does one that reads a residual as it is, as large as
// its input or larger, whose writer could not follow it (frozen, or its loops not fitting the
// new layout), and adoptReaderLayouts changes neither. The reader's kernel then runs a
// configuration it was not timed with: the end-to-end figure measures it (tuned with
// --pin-inputs under the topological scheduler, where its input link decided, it was tuned on its
// producer's layout already, net/layout_constraints.h, and nothing changes).
// A depthwise convolution (MobileNet's 3x3 layers) reads the image unpadded, its input channels
// blocked as its output channels (layout.out_c): where they are blocked as its producer's output
// channels, it reads the producer's buffer as it is if the producer's tiles hold whole rows (any
// convolution's start does) or one row each, and otherwise its conversion copies whole blocks of
// them (codegen/layout_conversion.h). Such a reader takes its producer's channel blocking alone
// where its space allows it, and not once another link depends on its output blocking (its channels
// are its output's). Tuned in topological order, the depthwise task was tuned on those blocks
// already (net/layout_constraints.h: its layout.out_c pinned to its producer's, or its producer's
// to its own), and nothing changes here: its sentence is said all the same. What still changes
// is an untuned configuration, and one of tasks tuned side by side (the gradient and round-robin
// schedulers), whose kernel then runs blocks it was not timed with.
std::vector<Config> adoptProducerLayouts(const TaskGraph& graph, std::vector<Config> configs,
                                         layout::TuningMode mode, TaskTemplates templates,
                                         std::set<std::size_t>* frozen,
                                         std::vector<Adoption>* adopted) {
  const std::map<std::string, std::size_t> producer = tensorWriters(graph);
  std::vector<std::size_t> order(graph.tasks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return graph.tasks[a].position < graph.tasks[b].position;
  });
  for (std::size_t reader : order) {
    const OperatorSpec& op = graph.tasks[reader].op;
    const bool depthwise = layout::isDepthwise(op);
    if (!depthwise && !layout::readsProducerLayout(op)) continue;
    for (const Occurrence& o : graph.tasks[reader].occurrences) {
      const std::string& input = o.input;
      const auto it = producer.find(input);
      if (it == producer.end() || it->second == reader) continue;
      const std::size_t writer = it->second;
      const SearchSpace into =
          taskDefinitionOf(graph.tasks[reader], mode, templates, configs[reader]).space;
      const SearchSpace from =
          taskDefinitionOf(graph.tasks[writer], mode, templates, configs[writer]).space;
      Config candidate = configs[reader];
      bool fits = true, spatialChanged = false;
      for (const layout::ProducerReading& a : layout::kProducerReadings) {
        if (depthwise && a.spatial) continue;
        const int r = into.indexOf(depthwise ? "layout.out_c" : a.reader),
                  w = from.indexOf(a.writer);
        std::optional<Vertex> v;
        if (r >= 0 && w >= 0)
          v = layout::readProducerValue(a, configs[writer][std::size_t(w)], op.stride);
        fits = v && into.param(std::size_t(r)).contains(*v);
        if (!fits) break;
        spatialChanged = spatialChanged || (a.spatial && *v != candidate[std::size_t(r)]);
        candidate[std::size_t(r)] = std::move(*v);
      }
      // A depthwise reader's channel blocking is its output's.
      const bool outputChanged = spatialChanged || (depthwise && candidate != configs[reader]);
      // Nor does a reader (1x1 or depthwise) give up a residual it reads as it is, as large as
      // its input or larger, where the residual's writer cannot follow it into its new output
      // layout (frozen by another link, or its loops not fitting): the program would trade the
      // larger conversion for the smaller (topological tuning pins the larger link,
      // net/layout_constraints.h: ResNet-50's last 1x1 of a bottleneck).
      bool keepsResidual = false;
      if (outputChanged && op.outputElements() >= graph.tasks[writer].op.outputElements())
        if (const auto w =
                residualReadAsItIs(graph, producer, configs, mode, templates, reader, into, o))
          keepsResidual = !canFollow(graph, configs, mode, templates, *frozen, *w, into, candidate);
      if (fits && !(outputChanged && frozen->count(reader)) && !keepsResidual &&
          into.satisfies(candidate)) {
        // A reader that already reads its input as written is frozen too, but adopted nothing;
        // a depthwise reader on its producer's blocks already (tuned on them) is said all the
        // same: its sentence says what the program saved.
        const std::string blocks = o.layer + " takes the channel blocks of its input (" + input +
                                   ") as " + graph.tasks[writer].name + " writes them: ";
        if (depthwise)
          adopted->push_back({reader, o.layer, "pack_a",
                              blocks + "it reads them as they are, with no conversion",
                              blocks + "its conversion copies whole blocks"});
        else if (candidate != configs[reader])
          adopted->push_back({reader, o.layer, "pack_a",
                              o.layer + " reads its input (" + input + ") in the layout " +
                                  graph.tasks[writer].name + " writes it in"});
        configs[reader] = std::move(candidate);
        frozen->insert(reader);
        frozen->insert(writer);
      }
      break;
    }
  }
  return configs;
}

// Whether two layouts lay out tensors of the same logical dims, so that one converts straight
// into the other. A tensor read by tasks of different kinds is seen with other dims: a conv's
// 4-d output as a dense layer's (1, n, k) input, a dense layer's output as a batch matmul's
// (b, n, k); those go through the plain layout.
bool sameLogicalTensor(const layout::Layout& a, const layout::Layout& b) {
  if (a.logical().size() != b.logical().size()) return false;
  for (std::size_t i = 0; i < a.logical().size(); ++i)
    if (a.logical()[i].extent != b.logical()[i].extent) return false;
  return true;
}

// A GPU task's configuration in the GPU templates' space: as given, or, for a point of the common
// space (a run stored before GPU runs tuned the templates' own parameters split_k and stages, an
// untuned network's start point, the matrix-vector template's common configuration), with those
// parameters at their value when absent, which is how that run's kernels were built. A CPU-tuned
// one may break a GPU limit there (a matrix-vector block of more than 1024 threads): the launch
// check says so.
Config inGpuSpace(const OperatorDefinition& gpu, const Config& c) {
  if (gpu.space.contains(c)) return c;
  const SearchSpace common = withSpaceTarget(gpu, commonTarget(gpu.target)).space;
  if (!common.contains(c)) return c;  // generateKernel says what is wrong with it
  Config out;
  for (std::size_t i = 0; i < gpu.space.dims(); ++i) {
    const int at = common.indexOf(gpu.space.param(i).name());
    const Vertex* absent = gpu.space.valueWhenAbsent(i);
    if (at < 0 && !absent) return c;
    out.push_back(at >= 0 ? c[std::size_t(at)] : *absent);
  }
  return out;
}

// The tensors the program no longer writes or reads once conversions are dropped (an unpacked
// copy every reader now skips, an identity conversion's output) keep their names and indices,
// so the steps' operands stay as they are, but take no memory: ResNet-50's joint program drops
// one per linked 1x1 reader.
void releaseUnusedTensors(NetworkProgram& p) {
  std::vector<bool> used(p.tensors.size(), false);
  used[static_cast<std::size_t>(p.output)] = true;
  for (const ProgramStep& s : p.steps) {
    used[static_cast<std::size_t>(s.out)] = true;
    for (const ProgramOperand& o : s.in)
      if (o.kind == ProgramOperand::Kind::Tensor) used[static_cast<std::size_t>(o.index)] = true;
  }
  // A view aliases an earlier tensor: its data is that tensor's.
  for (std::size_t i = p.tensors.size(); i-- > 0;)
    if (used[i] && p.tensors[i].aliasOf >= 0)
      used[static_cast<std::size_t>(p.tensors[i].aliasOf)] = true;
  for (std::size_t i = 0; i < p.tensors.size(); ++i)
    if (!used[i] && p.tensors[i].input.empty() && p.tensors[i].aliasOf < 0)
      p.tensors[i].elements = 0;
}

}  // namespace

NetworkProgram buildNetworkProgram(const Network& net, const TaskGraph& graph,
                                   const std::vector<Config>& tuned, layout::TuningMode mode,
                                   std::uint64_t seed, codegen::Backend backend,
                                   TaskKernels kernels, TaskTemplates templates) {
  if (tuned.size() != graph.tasks.size())
    throw InputError("network run: " + std::to_string(tuned.size()) + " configurations for " +
                     std::to_string(graph.tasks.size()) + " tasks");
  const bool gpu = backend != codegen::Backend::Cpu;
  if (gpu && mode != layout::TuningMode::Loop)
    throw InputError("network run on " + std::string(codegen::backendName(backend)) +
                     ": its tasks tune loops only so far (--mode loop), not layouts");
  NetworkProgram p;
  p.backend = backend;
  std::vector<Config> configs = tuned;
  std::vector<Adoption> adoptions;
  if (mode == layout::TuningMode::Joint) {
    std::set<std::size_t> frozen;
    configs = adoptProducerLayouts(graph, std::move(configs), mode, templates, &frozen, &adoptions);
    configs = adoptReaderLayouts(graph, std::move(configs), mode, templates, frozen, &adoptions);
  }
  std::map<std::string, int> tensorIndex;
  auto tensor = [&](const std::string& name) {
    const auto it = tensorIndex.find(name);
    if (it == tensorIndex.end()) throw std::logic_error("network program: no tensor " + name);
    return ProgramOperand{ProgramOperand::Kind::Tensor, it->second};
  };
  auto param = [&](std::vector<float> data) {
    p.params.push_back(std::move(data));
    return ProgramOperand{ProgramOperand::Kind::Param, static_cast<int>(p.params.size()) - 1};
  };
  // Tensors: the inputs drawn from the seed, every layer's output; views alias their source.
  for (const Input& in : net.inputs) {
    tensorIndex[in.name] = static_cast<int>(p.tensors.size());
    p.tensors.push_back({in.name, elements(in.shape), -1, drawInput(in, seed).data});
  }
  for (const Layer& l : net.layers) {
    ProgramTensor t{l.name, elements(l.shape), -1, {}};
    if (l.kind == LayerKind::Flatten || l.kind == LayerKind::Reshape) {
      t.aliasOf = tensor(l.inputs[0]).index;
      while (p.tensors[static_cast<std::size_t>(t.aliasOf)].aliasOf >= 0)
        t.aliasOf = p.tensors[static_cast<std::size_t>(t.aliasOf)].aliasOf;
    }
    tensorIndex[l.name] = static_cast<int>(p.tensors.size());
    p.tensors.push_back(std::move(t));
  }
  // One source (CPU) or one module each (GPU): task kernels task_<i> (with their conversions
  // task_<i>_pack_a, ... when they use layouts of their own), fixed kernels fixed_<j>.
  std::vector<std::optional<layout::OperandLayouts>> layouts;
  std::vector<bool> transformedWeights;  // GeneratedKernel::packedWeights, by task
  auto addGpuModule = [&](const std::string& entry, std::string source,
                          const codegen::LaunchConfig& launch) {
    p.modules.push_back(std::move(source));
    p.kernels[entry] = {static_cast<int>(p.modules.size()) - 1, launch};
  };
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    OperatorDefinition def = taskDefinitionOf(graph.tasks[i], mode, templates, configs[i]);
    if (gpu) def = withSpaceTarget(std::move(def), gpuTarget(def.target));
    const std::string entry = taskEntry(i);
    const codegen::GeneratedKernel k =
        kernels == TaskKernels::Reference
            ? codegen::generateReferenceKernel(def.op, backend, {entry})
            : codegen::generateKernel(def.op, def.space,
                                      gpu ? inGpuSpace(def, configs[i]) : configs[i], backend,
                                      {entry});
    if (gpu)
      addGpuModule(entry, k.source, k.launch);
    else
      p.source += k.source + "\n";
    transformedWeights.push_back(k.packedWeights);
    layouts.push_back(k.usesLayouts()
                          ? std::optional(layout::operandLayouts(def.op, def.space, configs[i]))
                          : std::nullopt);
  }
  std::map<std::string, std::string> fixedEntry;
  for (const FixedLayer& f : graph.fixed)
    if (!f.view) {
      const std::string entry = "fixed_" + std::to_string(fixedEntry.size());
      const Layer& layer = *net.find(f.layer);
      if (gpu) {
        FixedGpuKernel k = fixedLayerGpuKernel(net, layer, entry, backend);
        addGpuModule(entry, std::move(k.source), k.launch);
      } else {
        p.source += fixedLayerCpuSource(net, layer, entry) + "\n";
      }
      fixedEntry[f.layer] = entry;
    }
  // What each conversion step converts (nullptr: the plain layout), by step index.
  struct Conversion {
    const layout::Layout* from = nullptr;
    const layout::Layout* to = nullptr;
  };
  std::map<std::size_t, Conversion> conversions;
  // Calls in layer order: a task's kernel where its last fused layer stands (every residual it
  // reads exists by then), a fixed kernel where its layer stands.
  std::map<std::string, std::pair<std::size_t, const Occurrence*>> taskAt;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i)
    for (const Occurrence& o : graph.tasks[i].occurrences) taskAt[o.output] = {i, &o};
  const ProgramOperand none;
  for (const Layer& l : net.layers) {
    if (const auto it = taskAt.find(l.name); it != taskAt.end()) {
      const Occurrence& o = *it->second.second;
      const Layer& complex = *net.find(o.layer);
      const std::string entry = taskEntry(it->second.first);
      ProgramStep s{o.layer, StepKind::Task, entry, {}, {}, tensor(o.output).index};
      ProgramOperand b = none, bias = none;
      if (complex.kind == LayerKind::MatMul || complex.kind == LayerKind::BatchMatMul) {
        b = tensor(complex.inputs[1]);
      } else {
        std::map<std::string, Tensor> drawn = layerParameters(net, complex, seed);
        b = param(std::move(drawn["weight"].data));
        if (complex.bias) bias = param(std::move(drawn["bias"].data));
      }
      for (const std::string& fused : o.fused)
        if (net.find(fused)->kind == LayerKind::BiasAdd)
          bias = param(std::move(layerParameters(net, *net.find(fused), seed)["bias"].data));
      s.in = {tensor(complex.inputs[0]), b, bias,
              o.residuals.empty() ? none : tensor(o.residuals.front())};
      if (transformedWeights[it->second.first]) {
        // Winograd's kernels read their weights transformed: once, now, as the program stores
        // them (on a GPU they are uploaded so).
        std::vector<float>& w = p.params[static_cast<std::size_t>(b.index)];
        w = codegen::winogradWeights(graph.tasks[it->second.first].op, w);
      }
      if (const auto& lay = layouts[it->second.first]) {
        // The kernel reads and writes its own layouts: weights converted now, activations (and
        // the residual, laid out as the output) converted around it in every pass.
        if (b.kind == ProgramOperand::Kind::Param) {
          const std::vector<float>& w = p.params[static_cast<std::size_t>(b.index)];
          std::vector<float> packed(static_cast<std::size_t>(lay->b.size()));
          lay->b.pack(w, packed);
          p.params[static_cast<std::size_t>(b.index)] = std::move(packed);
        }
        auto convert = [&](const ProgramOperand& from, const std::string& suffix,
                           const layout::Layout& into) {
          p.tensors.push_back({o.layer + "." + suffix, into.size(), -1, {}});
          const int to = static_cast<int>(p.tensors.size()) - 1;
          conversions[p.steps.size()] = {nullptr, &into};
          p.steps.push_back({o.layer, StepKind::Convert, entry + "_" + suffix, {from}, {}, to});
          return ProgramOperand{ProgramOperand::Kind::Tensor, to};
        };
        s.in[0] = convert(s.in[0], "pack_a", lay->a);
        if (b.kind == ProgramOperand::Kind::Tensor) s.in[1] = convert(s.in[1], "pack_b", lay->b);
        if (s.in[3].kind != ProgramOperand::Kind::None)
          s.in[3] = convert(s.in[3], "pack_c", lay->c);
        p.tensors.push_back({o.layer + ".laid_out", lay->c.size(), -1, {}});
        const int plainOut = s.out;
        s.out = static_cast<int>(p.tensors.size()) - 1;
        const ProgramOperand laidOut{ProgramOperand::Kind::Tensor, s.out};
        p.steps.push_back(std::move(s));
        conversions[p.steps.size()] = {&lay->c, nullptr};
        p.steps.push_back(
            {o.layer, StepKind::Convert, entry + "_unpack_c", {laidOut}, {}, plainOut});
        continue;
      }
      p.steps.push_back(std::move(s));
      continue;
    }
    const auto f = fixedEntry.find(l.name);
    if (f == fixedEntry.end()) continue;  // a complex or fused layer (its task runs later), a view
    ProgramStep s{l.name, StepKind::Fixed, f->second, {}, {}, tensor(l.name).index};
    for (const std::string& in : l.inputs) s.in.push_back(tensor(in));
    std::map<std::string, Tensor> drawn = layerParameters(net, l, seed);
    for (const Parameter& q : net.parameters(l))
      s.params.push_back(param(std::move(drawn[q.role].data)));
    p.steps.push_back(std::move(s));
  }
  p.output = tensor(net.output).index;

  // A layout task's output that only conversions (and, when layouts propagate, pools) read is
  // never unpacked: each conversion goes straight from the producer's layout into its own (one
  // pass over the data, not two). With propagation (ALT) a pool reads the producer's layout
  // itself, and a conversion into the very layout the producer wrote is no step at all (even
  // where the plain tensor is needed too): its reader takes the producer's tensor.
  const bool propagate = mode == layout::TuningMode::Joint;
  std::vector<bool> drop(p.steps.size(), false);
  std::map<int, int> sameTensor;  // a dropped identity conversion's output -> its source
  std::set<std::pair<std::string, std::string>> dropped;  // their (layer, entry)
  // The conversions that convert straight from a producer's layout: (layer, entry before).
  std::set<std::pair<std::string, std::string>> straight;
  int direct = 0, propagated = 0;
  for (const auto& [u, unpack] : conversions) {
    if (!unpack.from || unpack.to) continue;  // not an unpack
    const int plain = p.steps[u].out;
    // The plain tensor is needed when the network outputs it, a view aliases it, or a step other
    // than a conversion (or, with propagation, a pool) reads it.
    bool needed = plain == p.output;
    for (const ProgramTensor& t : p.tensors) needed = needed || t.aliasOf == plain;
    std::vector<std::size_t> converters, pools;
    for (std::size_t r = 0; r < p.steps.size(); ++r)
      for (std::size_t k = 0; k < p.steps[r].in.size(); ++k) {
        const ProgramOperand& o = p.steps[r].in[k];
        if (o.kind != ProgramOperand::Kind::Tensor || o.index != plain) continue;
        const auto c = conversions.find(r);
        if (c != conversions.end() && !c->second.from && c->second.to &&
            sameLogicalTensor(*unpack.from, *c->second.to))
          converters.push_back(r);
        else if (propagate && p.steps[r].kind == StepKind::Fixed && k == 0 &&
                 canReadLayout(*net.find(p.steps[r].name), *unpack.from))
          pools.push_back(r);
        else
          needed = true;
      }
    const int laidOut = p.steps[u].in[0].index;
    for (std::size_t r : converters) {
      // A conversion into the very layout the producer wrote is no step at all, whether or not
      // the plain tensor stays.
      if (propagate && layout::sameMapping(*unpack.from, *conversions[r].to)) {
        drop[r] = true;
        dropped.insert({p.steps[r].name, p.steps[r].entry});
        sameTensor[p.steps[r].out] = laidOut;
        continue;
      }
      if (needed) continue;  // it converts from the plain tensor, which is made anyway
      const std::string name = "direct_" + std::to_string(direct++);
      straight.insert({p.steps[r].name, p.steps[r].entry});
      codegen::CodeWriter w;
      codegen::writeLayoutConversion(w, name, *unpack.from, *conversions[r].to);
      p.source += w.str() + "\n";
      p.steps[r].entry = name;
      p.steps[r].in[0] = p.steps[u].in[0];
    }
    if (needed || (converters.empty() && pools.empty())) continue;
    for (std::size_t r : pools) {
      const std::string name = "propagated_" + std::to_string(propagated++);
      p.source += fixedLayerCpuSource(net, *net.find(p.steps[r].name), name, *unpack.from) + "\n";
      p.steps[r].entry = name;
      p.steps[r].in[0] = p.steps[u].in[0];
    }
    drop[u] = true;
  }
  auto redirect = [&] {
    for (ProgramStep& s : p.steps)
      for (ProgramOperand& o : s.in)
        if (const auto it = sameTensor.find(o.index);
            o.kind == ProgramOperand::Kind::Tensor && it != sameTensor.end())
          o.index = it->second;
    sameTensor.clear();
  };
  redirect();
  // Two conversions of one tensor into one layout (BERT's query, key and value projections, one
  // task, read one input): with propagation, the later one's readers take the earlier one's
  // output (joint-np, ALT's baseline, keeps every conversion). A tensor's layout is its
  // producer's, so the source tensor and the target layout say it all.
  for (std::size_t i = 0; i < p.steps.size() && propagate; ++i) {
    const auto c = conversions.find(i);
    if (drop[i] || c == conversions.end() || !c->second.to) continue;
    for (std::size_t j = 0; j < i; ++j) {
      const auto earlier = conversions.find(j);
      if (drop[j] || earlier == conversions.end() || !earlier->second.to ||
          p.steps[j].in[0].index != p.steps[i].in[0].index ||
          !layout::sameMapping(*earlier->second.to, *c->second.to))
        continue;
      drop[i] = true;
      sameTensor[p.steps[i].out] = p.steps[j].out;
      break;
    }
  }
  redirect();
  std::vector<ProgramStep> kept;
  for (std::size_t i = 0; i < p.steps.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(p.steps[i]));
  p.steps = std::move(kept);
  releaseUnusedTensors(p);
  p.configs = std::move(configs);
  for (const Adoption& a : adoptions) {
    const std::pair<std::string, std::string> step{a.layer, taskEntry(a.task) + "_" + a.suffix};
    if (dropped.count(step))
      p.adopted.push_back(a.sentence);
    else if (!a.blocksSentence.empty() && straight.count(step))
      p.adopted.push_back(a.blocksSentence);
  }
  return p;
}

}  // namespace opevo::net
