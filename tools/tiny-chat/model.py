"""The keel-tiny-chat network: a ~1M-parameter Llama, written to match llama.cpp's `llama` arch exactly.

* RMSNorm (eps 1e-5) before attention and FFN, final RMSNorm, untied output projection.
* RoPE on ADJACENT pairs (x[2i], x[2i+1]), theta_i = 10000^(-2i/head_dim) -- llama.cpp's normal
  rope type (LLAMA_ROPE_TYPE_NORM) used for arch `llama`, so Q/K need no permutation in the GGUF.
* Multi-head attention without GQA, causal, scale 1/sqrt(head_dim).
* SwiGLU FFN: down(silu(gate(x)) * up(x)).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {
    "vocab_size": 512,
    "dim": 128,
    "n_layers": 4,
    "n_heads": 4,
    "n_kv_heads": 4,
    "hidden_dim": 352,
    "norm_eps": 1e-5,
    "rope_theta": 10000.0,
    "context_length": 512,
}


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(head_dim, max_len, theta):
    inv = theta ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    ang = torch.arange(max_len, dtype=torch.float64)[:, None] * inv[None, :]
    return torch.cos(ang).float(), torch.sin(ang).float()


def apply_rope(x, cos, sin):
    # x: [B, H, T, D]; rotate adjacent pairs (even, odd)
    xe, xo = x[..., 0::2], x[..., 1::2]
    c, s = cos[: x.shape[2]], sin[: x.shape[2]]
    return torch.stack((xe * c - xo * s, xe * s + xo * c), dim=-1).flatten(-2)


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, h = cfg["dim"], cfg["hidden_dim"]
        self.n_heads = cfg["n_heads"]
        self.head_dim = d // self.n_heads
        self.attn_norm = RMSNorm(d, cfg["norm_eps"])
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.ffn_norm = RMSNorm(d, cfg["norm_eps"])
        self.w_gate = nn.Linear(d, h, bias=False)
        self.w_up = nn.Linear(d, h, bias=False)
        self.w_down = nn.Linear(h, d, bias=False)

    def forward(self, x, cos, sin):
        B, T, D = x.shape
        a = self.attn_norm(x)
        q = self.wq(a).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(a).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.wv(a).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        mask = torch.ones(T, T, dtype=torch.bool).triu(1)
        att = att.masked_fill(mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, D)
        x = x + self.wo(y)
        f = self.ffn_norm(x)
        return x + self.w_down(F.silu(self.w_gate(f)) * self.w_up(f))


class TinyLlama(nn.Module):
    def __init__(self, cfg=CONFIG):
        super().__init__()
        self.cfg = dict(cfg)
        self.tok_embeddings = nn.Embedding(cfg["vocab_size"], cfg["dim"])
        self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg["n_layers"]))
        self.norm = RMSNorm(cfg["dim"], cfg["norm_eps"])
        self.output = nn.Linear(cfg["dim"], cfg["vocab_size"], bias=False)
        cos, sin = rope_tables(cfg["dim"] // cfg["n_heads"], cfg["context_length"], cfg["rope_theta"])
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        self.apply(self._init)
        for layer in self.layers:  # GPT-2 style scaled init of residual projections
            std = 0.02 / math.sqrt(2 * cfg["n_layers"])
            nn.init.normal_(layer.wo.weight, 0.0, std)
            nn.init.normal_(layer.w_down.weight, 0.0, std)

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, 0.0, 0.02)

    def forward(self, tokens):
        x = self.tok_embeddings(tokens)
        for layer in self.layers:
            x = layer(x, self.rope_cos, self.rope_sin)
        return self.output(self.norm(x))

    def gguf_tensors(self):
        """(name, float32 numpy array) in llama.cpp naming. numpy shape [out, in] == ggml ne [in, out]."""
        t = [("token_embd.weight", self.tok_embeddings.weight)]
        for i, l in enumerate(self.layers):
            p = f"blk.{i}."
            t += [
                (p + "attn_norm.weight", l.attn_norm.weight),
                (p + "attn_q.weight", l.wq.weight),
                (p + "attn_k.weight", l.wk.weight),
                (p + "attn_v.weight", l.wv.weight),
                (p + "attn_output.weight", l.wo.weight),
                (p + "ffn_norm.weight", l.ffn_norm.weight),
                (p + "ffn_gate.weight", l.w_gate.weight),
                (p + "ffn_down.weight", l.w_down.weight),
                (p + "ffn_up.weight", l.w_up.weight),
            ]
        t += [("output_norm.weight", self.norm.weight), ("output.weight", self.output.weight)]
        return [(n, w.detach().float().contiguous().numpy()) for n, w in t]
