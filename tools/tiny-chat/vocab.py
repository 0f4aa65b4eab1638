#!/usr/bin/env python3
"""Step 2: train the 512-piece SentencePiece BPE vocabulary (byte fallback) and write a random-weight
GGUF (build/vocab.gguf) that node-llama-cpp can load, so that tokenize.mjs can tokenize the corpus
with node-llama-cpp's own ChatML wrapper and tokenizer.

Vocabulary: <unk>=0, <s>=1, </s>=2, <|im_start|>=3, <|im_end|>=4 (CONTROL in the GGUF),
<0x00>..<0xFF> byte pieces (BYTE), then 251 BPE merges learned from the corpus text.
No dummy-prefix space, no normalisation: text is tokenized exactly as written.
"""
import json
import os
import sys

import sentencepiece as spm
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gguf_writer import write_model_gguf  # noqa: E402
from model import CONFIG, TinyLlama  # noqa: E402

BUILD = os.path.join(HERE, "build")


def main():
    with open(os.path.join(BUILD, "corpus.json"), encoding="utf-8") as f:
        corpus = json.load(f)
    text_path = os.path.join(BUILD, "spm-text.txt")
    with open(text_path, "w", encoding="utf-8") as f:
        for line in corpus["spm_text"]:
            f.write(line + "\n")
    prefix = os.path.join(BUILD, "tokenizer")
    spm.SentencePieceTrainer.train(
        input=text_path,
        model_prefix=prefix,
        model_type="bpe",
        vocab_size=CONFIG["vocab_size"],
        byte_fallback=True,
        character_coverage=1.0,
        split_digits=True,
        add_dummy_prefix=False,
        remove_extra_whitespaces=False,
        normalization_rule_name="identity",
        user_defined_symbols=["<|im_start|>", "<|im_end|>"],
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1,
        num_threads=1,
        minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
    print(f"sentencepiece: {sp.get_piece_size()} pieces; im_start={sp.piece_to_id('<|im_start|>')} "
          f"im_end={sp.piece_to_id('<|im_end|>')}; sample: {sp.encode('The capital of France is Paris.', out_type=str)}")
    torch.manual_seed(0)
    model = TinyLlama(CONFIG)
    n = write_model_gguf(os.path.join(BUILD, "vocab.gguf"), CONFIG, model.gguf_tensors(), prefix + ".model",
                         name="keel-tiny-chat-untrained")
    print(f"wrote build/vocab.gguf ({n} bytes, random weights, for tokenization)")


if __name__ == "__main__":
    main()
