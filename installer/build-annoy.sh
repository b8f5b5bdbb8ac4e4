#!/usr/bin/env bash
# Rebuild annoy in a build venv without -march=native, so a frozen bundle runs on any x86-64 CPU.
#
# annoy 1.17.3 is sdist-only and its setup.py adds -march=native by default: a build made here could die
# with SIGILL (illegal instruction) on an older laptop. ANNOY_COMPILER_ARGS replaces its compiler flags
# wholesale; we keep annoy's own flags and choose the instruction set explicitly.
#
#   installer/build-annoy.sh PYTHON [baseline|avx2]
#
# baseline (default): plain x86-64 (SSE2), runs on every 64-bit x86 CPU; annoy uses its scalar code.
# avx2: Haswell (2013) and later, and AMD since 2015; annoy uses its AVX distance code. Some cheap
#       laptops of 2020 (Celeron/Pentium "Jasper Lake") still lack AVX, so this is opt-in.
# On arm64 (Linux or macOS) neither flag applies; the script keeps annoy's flags minus -march/-mcpu.
#
# Takes ~15 s on 2 cores. Verifies afterwards that the built module has no AVX-512 (and, for baseline,
# no AVX) instructions when objdump is available.
set -euo pipefail
PY=${1:?usage: build-annoy.sh PYTHON [baseline|avx2]}
LEVEL=${2:-baseline}
COMMON="-D_CRT_SECURE_NO_WARNINGS,-fpermissive,-O3,-ffast-math,-fno-associative-math,-DANNOYLIB_MULTITHREADED_BUILD,-std=c++14"
case "$(uname -m):$LEVEL" in
  x86_64:baseline) ARGS="$COMMON,-march=x86-64,-mtune=generic" ;;
  x86_64:avx2)     ARGS="$COMMON,-march=x86-64,-mtune=generic,-mavx2,-mfma" ;;
  *:baseline|*:avx2) ARGS="$COMMON" ;;
  *) echo "build-annoy.sh: level must be baseline or avx2, not $LEVEL" >&2; exit 2 ;;
esac
echo "build-annoy.sh: ANNOY_COMPILER_ARGS=$ARGS"
ANNOY_COMPILER_ARGS="$ARGS" "$PY" -m pip install --quiet --no-binary annoy --no-cache-dir --no-deps \
  --force-reinstall annoy==1.17.3
SO=$("$PY" -c 'import annoy, annoy.annoylib as m; print(m.__file__)' 2>/dev/null \
  || "$PY" -c 'import annoy; print(annoy.__file__)')
if command -v objdump >/dev/null 2>&1 && [ "$(uname -m)" = x86_64 ]; then
  if objdump -d "$SO" | grep -q '%zmm'; then
    echo "build-annoy.sh: $SO uses AVX-512 registers: not portable" >&2; exit 1
  fi
  if [ "$LEVEL" = baseline ] && objdump -d "$SO" | grep -q '%ymm'; then
    echo "build-annoy.sh: $SO uses AVX registers, but baseline was asked for" >&2; exit 1
  fi
  echo "build-annoy.sh: $SO checked: no instructions beyond the $LEVEL level"
fi
