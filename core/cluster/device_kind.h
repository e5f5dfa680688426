#pragma once

#include <string>

namespace opevo {
struct ReplayDataset;
}

namespace opevo::cluster {

// What a trial needs to be measured on, and so the stream it goes to: a backend and a device
// model ("cuda:NVIDIA H100 80GB HBM3", "cpu:AMD EPYC 7763, 64 threads"), or the content of a
// replay dataset ("replay:9c0f12ab34cd56ef"), so agents replaying another file never see it.
// Agents that serve the same kind measure interchangeably.
std::string deviceKind(const std::string& backend, const std::string& device);
// The dataset's fingerprint: the same measurements give the same kind wherever the file lies
// and however it is compressed.
std::string replayKind(const ReplayDataset& dataset);
// The backend a kind names: the text before its first ':'.
std::string kindBackend(const std::string& kind);

}  // namespace opevo::cluster
