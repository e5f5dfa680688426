#!/usr/bin/env bash
# ALT's operator figures (docs/results/alt.md): each operator tuned twice at the same budget,
# joint layout + loop tuning and loop-only tuning over the plain layouts, beside the reference
# library timed in the same runs (oneDNN's convolution alone, operands already in the layouts it
# prefers; OpenBLAS's sgemm for MM1 and the other matmuls). Real kernels
# on this CPU, every one verified against the reference before it is timed.
#
#   benchmarks/alt_layouts.sh [TRIALS [ALGORITHM [OPERATOR...]]]
#
# Environment: OPEVO (the CLI, default build/release/bin/opevo), SEED (default 1). OpenBLAS's
# forced Haswell kernels and L2 size are unset so the vendor libraries run at their best.
set -euo pipefail
trials=${1:-60}
algo=${2:-}
shift $(( $# > 2 ? 2 : $# ))
ops=("$@")
[ ${#ops[@]} -gt 0 ] || ops=(alexnet_conv2_b1 alexnet_conv3_b1 alexnet_conv4_b1 alexnet_conv5_b1
                              resnet18_conv2_b1 resnet18_conv3_b1 resnet18_conv4_b1 resnet18_conv5_b1)
opevo=${OPEVO:-build/release/bin/opevo}
seed=${SEED:-1}
db=$(mktemp -d)/alt.db
algo_args=()
[ -n "$algo" ] && algo_args=(--algo "$algo")

run() {  # op mode -> one JSON object
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$opevo" tune --op "$1" --mode "$2" \
    --backend cpu --trials "$trials" --seed "$seed" --db "$db" "${algo_args[@]}" --json
}

echo "# $(date -u +%FT%TZ) $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "# $trials trials per run, seed $seed, algorithm ${algo:-default}"
printf '%-20s %10s %10s %8s %10s %8s  %s\n' operator joint_GF loop_GF j/l ref_GF j/ref \
  "best layouts (a convolution's output; input, a matmul's A; B; C)"
for op in "${ops[@]}"; do
  joint=$(run "$op" joint)
  loop=$(run "$op" loop)
  # CPU runs report GFLOP/s (speed_unit); TFLOPS from a build before schema 6 is scaled.
  scale=$(jq 'if .speed_unit == "TFLOPS" then 1000 else 1 end' <<<"$joint")
  j=$(jq ".best_speed * $scale" <<<"$joint")
  l=$(jq ".best_speed * $scale" <<<"$loop")
  d=$(jq "(.reference_speed // 0) * $scale" <<<"$joint")
  printf '%-20s %10.1f %10.1f %8.2f %10.1f %8.2f  %s; %s\n' "$op" "$j" "$l" \
    "$(jq -n "$j / $l")" "$d" "$(jq -n "if $d > 0 then $j / $d else 0 end")" \
    "$(jq -r '.best_layouts | if has("output") then .output else .a end' <<<"$joint")" \
    "$(jq -r '.best_layouts | if has("input") then .input else "\(.b); \(.c)" end' <<<"$joint")"
done
echo "# reference: $(jq -r '.reference_library' <<<"$joint")"
