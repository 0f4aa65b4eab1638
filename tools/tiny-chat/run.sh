#!/usr/bin/env bash
# End-to-end recipe for models/keel-tiny-chat/keel-tiny-chat.gguf (see README.md).
#   tools/tiny-chat/run.sh            # corpus -> vocab -> tokenize -> train -> verify
#   SKIP_APT=1 tools/tiny-chat/run.sh # skip the apt-get step (packages already installed)
# Run from anywhere; needs root for apt-get unless SKIP_APT=1. Takes ~10-20 minutes on 2 CPU cores.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY=/usr/bin/python3   # Debian's python3 (python3-torch, python3-sentencepiece live there, not in pyenv)
cd "$ROOT"

if [ "${SKIP_APT:-0}" != "1" ]; then
  echo "== apt packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch python3-sentencepiece python3-numpy libopenblas0-pthread >/dev/null
  # use OpenBLAS, not the reference BLAS (~27x slower)
  update-alternatives --set libblas.so.3-x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3
  update-alternatives --set liblapack.so.3-x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/openblas-pthread/liblapack.so.3
fi
$PY -c 'import torch, sentencepiece, numpy; print("torch", torch.__version__, "sentencepiece", sentencepiece.__version__)'
test -d "$ROOT/node_modules/node-llama-cpp" || { echo "node-llama-cpp missing: run npm ci in $ROOT" >&2; exit 1; }

echo "== 1. corpus";            $PY "$HERE/corpus.py"
echo "== 2. vocabulary + random-weight GGUF"; $PY "$HERE/vocab.py"
echo "== 3. tokenize with node-llama-cpp's ChatML wrapper"; node "$HERE/tokenize.mjs"
echo "== 4. train (log: tools/tiny-chat/build/train.log)"
$PY "$HERE/train.py" "$@" 2>&1 | tee "$HERE/build/train.log"
echo "== 5. verify with node-llama-cpp"
node "$HERE/verify.mjs" | tee "$HERE/build/verify.log"
ls -l "$ROOT/models/keel-tiny-chat/keel-tiny-chat.gguf"
sha256sum "$ROOT/models/keel-tiny-chat/keel-tiny-chat.gguf"
