#pragma once

#include <nlohmann/json.hpp>

#include "cpu/cpu_runner.h"
#include "engine/measurement.h"
#include "worker/worker_client.h"

namespace opevo {

// opevo-worker speaks one JSON object per line on stdin/stdout:
//   {"cmd": "hello"} -> {"ok": true, "worker": "opevo-worker", "version": ..., "pid": ...}
//   {"cmd": "measure", "backend": "cpu", "op": {operator json}, "library": "/path/k.so",
//    "timing": {"min_total_ms": 100, "min_runs": 3, "max_runs": 1000, "warmup_runs": 1,
//               "cold_weights": false, "cold_activations": false, "activation_b": false,
//               "trial_ms": 10000}}
//     -> {"ok": true, "measurement": {...}}; trial_ms (CPU and KAS, optional): the caller's time
//        limit, counted from when the worker takes the request, within which the kernel's runs
//        are cut to those that fit (TimingOptions::trialMs)
//   {"cmd": "reference", "backend": "cpu", "op": {...}, "timing": {...}}
//     -> {"ok": true, "measurement": {...}, "library": "OpenBLAS"}
//   {"cmd": "measure", "backend": "cuda", "op": {...}, "binary": "/path/k.cubin",
//    "entry": "opevo_kernel", "launch": {"grid": [x, y, z], "block": [x, y, z],
//    "shared_bytes": n}, "cold_l2": false, "timing": {...}}
//     -> {"ok": true, "measurement": {...}} plus "worker_exits": true after a CUDA error (the
//        context is unusable, so the worker quits after replying); a kernel in layouts of its
//        own (joint layout tuning) adds "layouts": [A, B, C] (layout::Layout::toJson each), and
//        the worker packs A, B and the residual into them and unpacks C before the check; a
//        kernel that reads its weights transformed (Winograd's) adds "winograd_weights": true,
//        and the worker transforms B on the host (codegen::winogradWeights) before the upload
//   {"cmd": "reference", "backend": "cuda", "op": {...}, "timing": {...}, "cold_l2": false}
//     -> {"ok": true, "measurement": {...}, "library": "cuBLAS sgemm (libcublas.so.13)"}
//        (Conv2D: "cuDNN convolution forward, algorithm N (its name), ... (libcudnn.so.9)";
//        without the vendor library: "plain kernel (why)")
//   {"cmd": "measure" | "reference", "backend": "hip", ...} -> as for cuda, with an AMDGPU code
//     object as "binary" and "library": "rocBLAS sgemm (librocblas.so.4)" or a plain kernel
//   {"cmd": "measure_kas", "kernel": {kas kernel file}, "bindings": {"C": 64, "H": 56, ...,
//    "x1": 128}, "library": "/path/k.so", "entry": "opevo_kas_kernel", "timing": {...}}
//     -> {"ok": true, "measurement": {...}}: a Canvas kernel checked against its reference
//   {"cmd": "quit"} -> {"ok": true}
// A request it cannot serve gets {"ok": false, "error": "..."}.
nlohmann::json measurementToJson(const Measurement& m);
Measurement measurementFromJson(const nlohmann::json& j);
nlohmann::json timingToJson(const TimingOptions& t);
// The timing of a request as timingToJson wrote it; what it lacks keeps TimingOptions' default.
TimingOptions timingFromJson(const nlohmann::json& j);
// A "measure" reply as a trial: a worker that died or hung gives its failure, a refused request
// a launch error, anything else the worker's own measurement; measureMs is the whole call's time.
Measurement measurementFromReply(const WorkerClient::Reply& reply);

// Handles one request inside the worker process; sets quit on "quit".
nlohmann::json handleWorkerRequest(const nlohmann::json& request, bool& quit);

}  // namespace opevo
