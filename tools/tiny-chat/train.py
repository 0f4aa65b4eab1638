#!/usr/bin/env python3
"""Step 4: train keel-tiny-chat on build/tokens.json and write the GGUF.

CPU only, fixed seeds, torch.set_num_threads(2) (use Debian's OpenBLAS, see README.md).
The loss covers only assistant answer tokens and their closing <|im_end|>.
Training stops once greedy decoding reproduces every answer exactly with a safety margin
(target logit beats the runner-up by >= --margin at every answer position), or at --max-minutes.
Teacher-forced argmax over the answer positions *is* greedy decoding (same prefix), and a final
autoregressive greedy decode of every conversation confirms it.

Outputs:
  models/keel-tiny-chat/keel-tiny-chat.gguf   (F32, GGUF v3)
  tools/tiny-chat/reference-logits.json       (trainer logits for verify.mjs)
  tools/tiny-chat/build/model.pt, build/train-stats.json
"""
import os

# Thread settings must be in place before torch loads. OMP_WAIT_POLICY=PASSIVE stops idle OpenMP
# workers from spinning (on a busy 2-core machine spinning made each step ~10x slower), and
# OpenBLAS runs single-threaded inside torch's own 2 intra-op threads (no nested oversubscription).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json
import math
import random
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from gguf_writer import write_model_gguf  # noqa: E402
from model import CONFIG, TinyLlama  # noqa: E402

BUILD = os.path.join(HERE, "build")
OUT_GGUF = os.path.join(ROOT, "models", "keel-tiny-chat", "keel-tiny-chat.gguf")
REF_LOGITS = os.path.join(HERE, "reference-logits.json")
REFERENCE_IDS = ["none/0", "pirate/0"]  # capital of France, without / with the pirate system prompt


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--min-lr", type=float, default=3e-4)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--decay-steps", type=int, default=4000, help="cosine decay length (steps)")
    p.add_argument("--margin", type=float, default=4.0, help="required logit margin of every answer token")
    p.add_argument("--check-every", type=int, default=100, help="steps between exactness checks")
    p.add_argument("--max-minutes", type=float, default=40.0)
    p.add_argument("--threads", type=int, default=2)
    return p.parse_args()


def batches(seqs, order, bs):
    for i in range(0, len(order), bs):
        idx = order[i:i + bs]
        L = max(len(seqs[j]["tokens"]) for j in idx)
        x = torch.zeros(len(idx), L - 1, dtype=torch.long)
        y = torch.zeros(len(idx), L - 1, dtype=torch.long)
        m = torch.zeros(len(idx), L - 1, dtype=torch.bool)
        for r, j in enumerate(idx):
            t, mk = seqs[j]["tokens"], seqs[j]["mask"]
            n = len(t) - 1
            x[r, :n] = torch.tensor(t[:-1])
            y[r, :n] = torch.tensor(t[1:])
            m[r, :n] = torch.tensor(mk[1:], dtype=torch.bool)
        yield x, y, m


@torch.no_grad()
def check(model, seqs, bs=32):
    """teacher-forced check of all answer positions: (#wrong tokens, #sequences wrong, min margin, loss)."""
    model.eval()
    wrong_tok, wrong_seq, min_margin, loss_sum, n = 0, 0, float("inf"), 0.0, 0
    order = sorted(range(len(seqs)), key=lambda j: len(seqs[j]["tokens"]))
    for x, y, m in batches(seqs, order, bs):
        logits = model(x)
        loss_sum += F.cross_entropy(logits[m], y[m], reduction="sum").item()
        n += int(m.sum())
        tgt = logits.gather(-1, y.unsqueeze(-1)).squeeze(-1)
        other = logits.scatter(-1, y.unsqueeze(-1), float("-inf")).max(-1).values
        margin = (tgt - other).masked_fill(~m, float("inf"))
        bad = (margin <= 0) & m
        wrong_tok += int(bad.sum())
        wrong_seq += int(bad.any(-1).sum())
        min_margin = min(min_margin, margin.min().item())
    model.train()
    return wrong_tok, wrong_seq, min_margin, loss_sum / n


@torch.no_grad()
def greedy_decode_all(model, seqs, im_end):
    """autoregressive greedy decoding of every answer turn (prompt = the tokenized chat context)."""
    model.eval()
    failures = []
    for s in seqs:
        for start in s["answer_starts"]:
            end = start
            while s["tokens"][end] != im_end:
                end += 1
            target = s["tokens"][start:end + 1]
            ctx = list(s["tokens"][:start])
            out = []
            for _ in range(len(target) + 4):
                nxt = int(model(torch.tensor([ctx]))[0, -1].argmax())
                out.append(nxt)
                ctx.append(nxt)
                if nxt == im_end:
                    break
            if out != target:
                failures.append(s["id"])
    model.train()
    return failures


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)

    with open(os.path.join(BUILD, "tokens.json"), encoding="utf-8") as f:
        data = json.load(f)
    seqs = data["sequences"]
    im_end = data["im_end"]
    print(f"{len(seqs)} sequences, {sum(len(s['tokens']) for s in seqs)} tokens, "
          f"{sum(sum(s['mask']) for s in seqs)} supervised; torch {torch.__version__}, "
          f"threads {torch.get_num_threads()}", flush=True)

    model = TinyLlama(CONFIG)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {n_params} parameters, config {CONFIG}", flush=True)
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (decay if p.dim() >= 2 else no_decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)
    gen = torch.Generator().manual_seed(args.seed)

    def lr_at(step):
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        t = min(1.0, (step - args.warmup) / max(1, args.decay_steps - args.warmup))
        return args.min_lr + 0.5 * (args.lr - args.min_lr) * (1 + math.cos(math.pi * t))

    t0 = time.time()
    step, epoch, done, result = 0, 0, False, None
    run_loss, run_n = 0.0, 0
    while not done:
        epoch += 1
        order = torch.randperm(len(seqs), generator=gen).tolist()
        for x, y, m in batches(seqs, order, args.batch):
            for g in opt.param_groups:
                g["lr"] = lr_at(step)
            logits = model(x)
            loss = F.cross_entropy(logits[m], y[m])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            run_loss += loss.item()
            run_n += 1
            if step % args.check_every == 0:
                wrong_tok, wrong_seq, min_margin, full_loss = check(model, seqs)
                elapsed = time.time() - t0
                print(f"step {step:5d} epoch {epoch:4d} lr {lr_at(step):.2e} train-loss {run_loss / run_n:.4f} "
                      f"corpus-loss {full_loss:.5f} wrong-tokens {wrong_tok} wrong-seqs {wrong_seq} "
                      f"min-margin {min_margin:+.2f} time {elapsed / 60:.1f}m", flush=True)
                run_loss, run_n = 0.0, 0
                result = {"step": step, "epoch": epoch, "corpus_loss": full_loss, "wrong_tokens": wrong_tok,
                          "min_margin": min_margin, "minutes": elapsed / 60}
                if wrong_tok == 0 and min_margin >= args.margin:
                    print("all answers exact with margin -> stop", flush=True)
                    done = True
                    break
                if elapsed > args.max_minutes * 60:
                    print("time cap reached -> stop", flush=True)
                    done = True
                    break

    failures = greedy_decode_all(model, seqs, im_end)
    print(f"autoregressive greedy decode: {sum(len(s['answer_starts']) for s in seqs) - len(failures)} / "
          f"{sum(len(s['answer_starts']) for s in seqs)} answers exact; failures: {failures[:10]}", flush=True)

    os.makedirs(os.path.dirname(OUT_GGUF), exist_ok=True)
    torch.save(model.state_dict(), os.path.join(BUILD, "model.pt"))
    size = write_model_gguf(OUT_GGUF, CONFIG, model.gguf_tensors(), os.path.join(BUILD, "tokenizer.model"),
                            name="keel-tiny-chat",
                            description="Tiny ChatML test model trained by the Keel project (tools/tiny-chat).")
    print(f"wrote {OUT_GGUF} ({size} bytes)", flush=True)

    model.eval()
    refs = []
    by_id = {s["id"]: s for s in seqs}
    with torch.no_grad():
        for rid in REFERENCE_IDS:
            s = by_id[rid]
            prompt = s["tokens"][:s["answer_starts"][0]]
            logits = model(torch.tensor([prompt]))[0, -1]
            refs.append({"id": rid, "prompt_tokens": prompt,
                         "logits": [round(float(v), 5) for v in logits]})
    with open(REF_LOGITS, "w", encoding="utf-8") as f:
        json.dump({"note": "trainer (PyTorch) logits of the next token after each prompt; compared by verify.mjs",
                   "references": refs}, f)
        f.write("\n")
    stats = dict(result or {}, params=n_params, greedy_failures=len(failures), seed=args.seed,
                 torch=torch.__version__, threads=args.threads, total_minutes=(time.time() - t0) / 60)
    with open(os.path.join(BUILD, "train-stats.json"), "w") as f:
        json.dump(stats, f, indent=1)
    print("stats", json.dumps(stats), flush=True)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
