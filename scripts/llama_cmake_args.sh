#!/bin/sh
# CMake flags for building llama-cpp-python on this machine: the CPU's own vector extensions,
# but never AMX, whose tile instructions crash batched prompt evaluation in sandboxed kernels.
# A fixed list (not GGML_NATIVE) also keeps the wheel cache valid across identical machines.
args="-DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
if [ "$(uname -m)" = "x86_64" ] && [ -r /proc/cpuinfo ]; then
  flags=$(grep -m1 '^flags' /proc/cpuinfo)
  for pair in avx:GGML_AVX avx2:GGML_AVX2 fma:GGML_FMA f16c:GGML_F16C avx_vnni:GGML_AVX_VNNI \
              avx512f:GGML_AVX512 avx512vbmi:GGML_AVX512_VBMI avx512_vnni:GGML_AVX512_VNNI \
              avx512_bf16:GGML_AVX512_BF16; do
    flag=${pair%%:*}; option=${pair#*:}
    case " $flags " in *" $flag "*) args="$args -D$option=ON" ;; esac
  done
fi
echo "$args"
