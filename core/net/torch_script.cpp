#include "net/torch_script.h"

#include <cstdio>
#include <map>
#include <stdexcept>

#include "common/enum_names.h"
#include "common/error.h"

namespace opevo::net {
namespace {

constexpr EnumNames<TorchForm, 2> kFormNames{
    {{{TorchForm::Eager, "eager"}, {TorchForm::Frozen, "frozen"}}}};

std::string intList(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// "t3": built by appending, as GCC 12 at -O3 warns (-Wrestrict, falsely) of "t" + std::string.
std::string numbered(char prefix, std::size_t i) {
  std::string s(1, prefix);
  s += std::to_string(i);
  return s;
}

std::string pair(std::int64_t v) {
  return intList({v, v});
}

// A float literal TorchScript reads back exactly (17 significant digits, always with a point or
// an exponent, so that it is typed float).
std::string floatLiteral(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  std::string s = text;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

class Writer {
 public:
  explicit Writer(const Network& net) : m_net(net) {}

  TorchScript write() {
    std::string args;
    for (std::size_t i = 0; i < m_net.inputs.size(); ++i) {
      const std::string v = numbered('x', i);
      m_variable[m_net.inputs[i].name] = v;
      args += ", " + v + ": Tensor";
    }
    m_body = "def forward(self" + args + "):\n";
    for (std::size_t i = 0; i < m_net.layers.size(); ++i) {
      const Layer& l = m_net.layers[i];
      const std::string v = numbered('t', i);
      m_body += "    " + v + " = " + expression(i, l) + "\n";
      m_variable[l.name] = v;
    }
    m_body += "    return " + m_variable.at(m_net.output) + "\n";
    return {m_body, m_buffers};
  }

 private:
  std::string in(const Layer& l, std::size_t k) const { return m_variable.at(l.inputs.at(k)); }

  std::string param(std::size_t layer, const Layer& l, const std::string& role) {
    const std::string name = numbered('p', layer) + "_" + role;
    m_buffers.push_back({name, l.name, role});
    return "self." + name;
  }

  std::string expression(std::size_t i, const Layer& l) {
    const std::string x = in(l, 0);
    switch (l.kind) {
      // Parameters named in statements of their own: the operands of + are evaluated in no set
      // order, and the buffers are listed as the source reads them.
      case LayerKind::Conv2D: {
        const std::string weight = param(i, l, "weight");
        const std::string bias = l.bias ? param(i, l, "bias") : "None";
        return "torch.conv2d(" + x + ", " + weight + ", " + bias + ", " + pair(l.stride) + ", " +
               pair(l.pad) + ", [1, 1], " + std::to_string(l.groups) + ")";
      }
      case LayerKind::Dense: {
        const std::string weight = param(i, l, "weight");
        const std::string bias = l.bias ? param(i, l, "bias") : "None";
        return "torch.linear(" + x + ", " + weight + ", " + bias + ")";
      }
      case LayerKind::MatMul:
        return "torch.mm(" + x + (l.transA ? ".t()" : "") + ", " + in(l, 1) +
               (l.transB ? ".t()" : "") + ")";
      case LayerKind::BatchMatMul:
        return "torch.bmm(" + x + (l.transA ? ".transpose(1, 2)" : "") + ", " + in(l, 1) +
               (l.transB ? ".transpose(1, 2)" : "") + ")";
      case LayerKind::BiasAdd:
        return x + " + " + param(i, l, "bias") +
               (m_net.shapeOf(l.inputs[0]).size() == 4 ? ".view([1, -1, 1, 1])" : "");
      case LayerKind::Relu:
        return "torch.relu(" + x + ")";
      case LayerKind::Relu6:
        return "torch.hardtanh(" + x + ", 0.0, 6.0)";  // what torch.nn.ReLU6 computes
      case LayerKind::Gelu:
        return "torch.gelu(" + x + ")";
      case LayerKind::Scale:
        return x + " * " + floatLiteral(l.factor);
      case LayerKind::Add:
        return x + " + " + in(l, 1);
      case LayerKind::MaxPool:
        return "torch.max_pool2d(" + x + ", " + intList({l.kernelH, l.kernelW}) + ", " +
               pair(l.stride) + ", " + pair(l.pad) + ")";
      case LayerKind::AvgPool:
        return "torch.avg_pool2d(" + x + ", " + intList({l.kernelH, l.kernelW}) + ", " +
               pair(l.stride) + ", " + pair(l.pad) + ", False, True)";
      case LayerKind::GlobalAvgPool:
        return "torch.adaptive_avg_pool2d(" + x + ", [1, 1])";
      case LayerKind::Softmax:
        return "torch.softmax(" + x + ", -1)";
      case LayerKind::LayerNorm: {
        const std::string gamma = param(i, l, "gamma"), beta = param(i, l, "beta");
        return "torch.layer_norm(" + x + ", [" + std::to_string(m_net.shapeOf(l.inputs[0]).back()) +
               "], " + gamma + ", " + beta + ", " + floatLiteral(l.eps) + ")";
      }
      case LayerKind::BatchNorm: {
        const std::string gamma = param(i, l, "gamma"), beta = param(i, l, "beta"),
                          mean = param(i, l, "mean"), var = param(i, l, "var");
        return "torch.batch_norm(" + x + ", " + gamma + ", " + beta + ", " + mean + ", " + var +
               ", False, 0.1, " + floatLiteral(l.eps) + ", False)";
      }
      case LayerKind::Flatten:
        return "torch.flatten(" + x + ", 1)";
      case LayerKind::Reshape:
        return x + ".reshape(" + intList(l.target) + ")";
      case LayerKind::Transpose:
        return x + ".permute(" + intList(l.target) + ").contiguous()";
    }
    throw std::logic_error("unhandled layer kind");
  }

  const Network& m_net;
  std::map<std::string, std::string> m_variable;  // tensor name -> the source's variable
  std::string m_body;
  std::vector<TorchScript::Buffer> m_buffers;
};

}  // namespace

std::string_view torchFormName(TorchForm form) {
  return kFormNames.name(form);
}

std::optional<TorchForm> torchFormNamed(std::string_view text) {
  return kFormNames.parse(text);
}

TorchForm parseTorchForm(std::string_view text, const std::string& where) {
  if (auto form = torchFormNamed(text)) return *form;
  throw InputError((where.empty() ? "" : where + ": ") + "unknown form '" + std::string(text) +
                   "' (forms: " + kFormNames.list() + ")");
}

TorchScript torchScriptOf(const Network& net) {
  return Writer(net).write();
}

}  // namespace opevo::net
