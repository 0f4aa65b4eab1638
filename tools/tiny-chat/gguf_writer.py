"""Minimal GGUF v3 writer (little-endian) for the keel-tiny-chat Llama.

Layout: magic "GGUF", u32 version 3, u64 tensor count, u64 kv count, the KV pairs, the tensor
infos (name, n_dims, ne[] innermost first, ggml type, offset), zero padding to `general.alignment`
(32), then the tensor data, each tensor starting at a multiple of 32 from the start of the data block.
"""
import struct

import numpy as np

GGUF_MAGIC = b"GGUF"
GGUF_VERSION = 3
ALIGNMENT = 32

# GGUF metadata value types
T_UINT8, T_INT8, T_UINT16, T_INT16, T_UINT32, T_INT32, T_FLOAT32, T_BOOL, T_STRING, T_ARRAY, \
    T_UINT64, T_INT64, T_FLOAT64 = range(13)
# ggml tensor types
GGML_F32 = 0
# llama.cpp token types
TOK_NORMAL, TOK_UNKNOWN, TOK_CONTROL, TOK_USER_DEFINED, TOK_UNUSED, TOK_BYTE = 1, 2, 3, 4, 5, 6

CHATML_JINJA = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def _str(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


_SCALAR = {T_UINT8: "<B", T_INT8: "<b", T_UINT16: "<H", T_INT16: "<h", T_UINT32: "<I", T_INT32: "<i",
           T_FLOAT32: "<f", T_BOOL: "<?", T_UINT64: "<Q", T_INT64: "<q", T_FLOAT64: "<d"}


def _value(vtype, v):
    if vtype == T_STRING:
        return _str(v)
    return struct.pack(_SCALAR[vtype], v)


class GGUFWriter:
    def __init__(self):
        self.kv = []       # (key, type, value[, elem type])
        self.tensors = []  # (name, np.float32 array)

    def add(self, key, vtype, value):
        self.kv.append((key, vtype, value, None))

    def add_array(self, key, elem_type, values):
        self.kv.append((key, T_ARRAY, list(values), elem_type))

    def add_tensor(self, name, array):
        a = np.ascontiguousarray(array, dtype="<f4")
        self.tensors.append((name, a))

    def write(self, path):
        out = bytearray()
        out += GGUF_MAGIC + struct.pack("<IQQ", GGUF_VERSION, len(self.tensors), len(self.kv))
        for key, vtype, value, elem in self.kv:
            out += _str(key) + struct.pack("<I", vtype)
            if vtype == T_ARRAY:
                out += struct.pack("<IQ", elem, len(value))
                if elem == T_STRING:
                    for v in value:
                        out += _str(v)
                else:
                    out += np.asarray(value, dtype=_SCALAR[elem]).tobytes()
            else:
                out += _value(vtype, value)
        offset = 0
        data_offsets = []
        for name, a in self.tensors:
            ne = list(reversed(a.shape))  # ggml: ne[0] is the innermost (contiguous) dimension
            out += _str(name) + struct.pack("<I", len(ne)) + struct.pack(f"<{len(ne)}Q", *ne)
            out += struct.pack("<IQ", GGML_F32, offset)
            data_offsets.append(offset)
            offset += (a.nbytes + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
        out += b"\0" * (-len(out) % ALIGNMENT)
        data_start = len(out)
        for (name, a), off in zip(self.tensors, data_offsets):
            out += b"\0" * (data_start + off - len(out))
            out += a.tobytes()
        out += b"\0" * (-len(out) % ALIGNMENT)
        with open(path, "wb") as f:
            f.write(out)
        return len(out)


def spm_vocab(spm_model_path):
    """tokens, scores, token types and special ids from a SentencePiece model (ChatML pieces -> CONTROL)."""
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=spm_model_path)
    tokens, scores, types = [], [], []
    for i in range(sp.get_piece_size()):
        piece = sp.id_to_piece(i)
        tokens.append(piece)
        scores.append(sp.get_score(i))
        if sp.is_unknown(i):
            types.append(TOK_UNKNOWN)
        elif sp.is_control(i) or piece in ("<|im_start|>", "<|im_end|>"):
            types.append(TOK_CONTROL)
        elif sp.is_byte(i):
            types.append(TOK_BYTE)
        elif sp.is_unused(i):
            types.append(TOK_UNUSED)
        else:
            types.append(TOK_NORMAL)
    ids = {
        "unk": sp.unk_id(), "bos": sp.bos_id(),
        "im_start": sp.piece_to_id("<|im_start|>"), "im_end": sp.piece_to_id("<|im_end|>"),
    }
    return tokens, scores, types, ids


def write_model_gguf(path, cfg, tensors, spm_model_path, name="keel-tiny-chat", description=""):
    tokens, scores, types, ids = spm_vocab(spm_model_path)
    assert len(tokens) == cfg["vocab_size"], (len(tokens), cfg["vocab_size"])
    w = GGUFWriter()
    w.add("general.architecture", T_STRING, "llama")
    w.add("general.name", T_STRING, name)
    if description:
        w.add("general.description", T_STRING, description)
    w.add("general.license", T_STRING, "MIT")
    w.add("general.file_type", T_UINT32, 0)  # ALL_F32
    w.add("general.alignment", T_UINT32, ALIGNMENT)
    w.add("llama.context_length", T_UINT32, cfg["context_length"])
    w.add("llama.embedding_length", T_UINT32, cfg["dim"])
    w.add("llama.block_count", T_UINT32, cfg["n_layers"])
    w.add("llama.feed_forward_length", T_UINT32, cfg["hidden_dim"])
    w.add("llama.rope.dimension_count", T_UINT32, cfg["dim"] // cfg["n_heads"])
    w.add("llama.rope.freq_base", T_FLOAT32, cfg["rope_theta"])
    w.add("llama.attention.head_count", T_UINT32, cfg["n_heads"])
    w.add("llama.attention.head_count_kv", T_UINT32, cfg["n_kv_heads"])
    w.add("llama.attention.layer_norm_rms_epsilon", T_FLOAT32, cfg["norm_eps"])
    w.add("llama.vocab_size", T_UINT32, cfg["vocab_size"])
    w.add("tokenizer.ggml.model", T_STRING, "llama")
    w.add_array("tokenizer.ggml.tokens", T_STRING, tokens)
    w.add_array("tokenizer.ggml.scores", T_FLOAT32, scores)
    w.add_array("tokenizer.ggml.token_type", T_INT32, types)
    w.add("tokenizer.ggml.bos_token_id", T_UINT32, ids["bos"])
    # generation ends at <|im_end|>: it is both EOS and EOT
    w.add("tokenizer.ggml.eos_token_id", T_UINT32, ids["im_end"])
    w.add("tokenizer.ggml.eot_token_id", T_UINT32, ids["im_end"])
    w.add("tokenizer.ggml.unknown_token_id", T_UINT32, ids["unk"])
    w.add("tokenizer.ggml.add_bos_token", T_BOOL, True)
    w.add("tokenizer.ggml.add_eos_token", T_BOOL, False)
    w.add("tokenizer.ggml.add_space_prefix", T_BOOL, False)
    w.add("tokenizer.chat_template", T_STRING, CHATML_JINJA)
    for n, a in tensors:
        w.add_tensor(n, a)
    return w.write(path)
