#!/usr/bin/env python3
"""The PyTorch peer of bench/bench_train.c: the same GPT-2 training step, written as a
PyTorch user would on CPU, timed the same way.

Same model (token + learned position embeddings, pre-LN blocks, causal attention, tanh GELU
MLP, final LayerNorm, LM head tied to the token table), same init scheme (normal 0.02,
residual projections 0.02/sqrt(2L), zero biases, unit LayerNorm gains), same optimizer
(AdamW 0.9/0.95, eps 1e-8, weight decay 0.1 on tensors of 2+ dims, lr 3e-4, clip to norm 1),
same data order (windows with stride T in order, batch k = windows kB..kB+B-1), same thread
count. Prints one JSON line like bench_train.

With --pos alibi (the peer of bench_train --pos alibi) there is no position table: each head's
causal scores q k^T / sqrt(hs) get Press et al.'s bias -m_h (i - j) added before the mask and
softmax, with ordo's slopes (2^(-8h/NH), h = 1..NH, for NH a power of two; the remaining
heads take every other slope of 2P otherwise, models/positional.c). The bias is one
[NH, T, T] float32 buffer shared by the blocks, added in eager attention (PyTorch 1.13's CPU
attention takes no bias otherwise): the materialized computation, as a PyTorch user writes it.

With --autocast the forward runs under torch.autocast("cpu", dtype=torch.bfloat16), as the
PyTorch documentation shows for mixed precision on CPU: the linear layers and matmuls (the LM
head included) take bf16, the weights, gradients and AdamW stay float32; the peer of
`ordo train --precision bf16`.

Run it tuned, as bench/run.sh does:
  OMP_WAIT_POLICY=PASSIVE MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=100000000000
"""
import contextlib
import argparse
import array
import json
import math
import resource
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, C, NH, T):
        super().__init__()
        self.NH = NH
        self.ln_1 = nn.LayerNorm(C)
        self.c_attn = nn.Linear(C, 3 * C)
        self.attn_proj = nn.Linear(C, C)
        self.ln_2 = nn.LayerNorm(C)
        self.c_fc = nn.Linear(C, 4 * C)
        self.mlp_proj = nn.Linear(4 * C, C)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        self.register_buffer("mask", mask, persistent=False)

    def attn(self, x, bias):
        B, T, C = x.shape
        hs = C // self.NH
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.NH, hs).transpose(1, 2)  # (B, NH, T, hs)
        k = k.view(B, T, self.NH, hs).transpose(1, 2)
        v = v.view(B, T, self.NH, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))  # (B, NH, T, T)
        if bias is not None:
            att = att + bias[:, :T, :T]  # (NH, T, T) broadcast over B
        att = att.masked_fill(self.mask[:T, :T], float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.attn_proj(y)

    def forward(self, x, bias=None):
        x = x + self.attn(self.ln_1(x), bias)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


def alibi_slopes(NH):
    """ordo_alibi_slopes (models/positional.c)."""
    P = 1
    while P * 2 <= NH:
        P *= 2
    s = [2.0 ** (-8.0 * h / P) for h in range(1, P + 1)]
    s += [2.0 ** (-8.0 * (2 * k + 1) / (2.0 * P)) for k in range(NH - P)]
    return s


class GPT(nn.Module):
    def __init__(self, V, T, C, L, NH, pos="learned"):
        super().__init__()
        self.wte = nn.Embedding(V, C)
        self.wpe = nn.Embedding(T, C) if pos == "learned" else None
        bias = None
        if pos == "alibi":  # (NH, T, T): -m_h (i - j); the upper triangle is masked anyway
            d = torch.arange(T).view(T, 1) - torch.arange(T).view(1, T)
            m = torch.tensor(alibi_slopes(NH), dtype=torch.float32).view(NH, 1, 1)
            bias = -m * d.float()
        self.register_buffer("bias", bias, persistent=False)
        self.h = nn.ModuleList(Block(C, NH, T) for _ in range(L))
        self.ln_f = nn.LayerNorm(C)
        resid = 0.02 / math.sqrt(2 * L)
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif "ln" in name:
                nn.init.ones_(p)
            else:
                nn.init.normal_(p, 0.0, resid if name.endswith("proj.weight") else 0.02)

    def forward(self, idx, targets):
        B, T = idx.shape
        x = self.wte(idx)
        if self.wpe is not None:
            x = x + self.wpe(torch.arange(T))
        for b in self.h:
            x = b(x, self.bias)
        logits = F.linear(self.ln_f(x), self.wte.weight)  # (B, T, V), tied head
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ids", required=True)
    for k, v in dict(V=50257, T=256, B=8, C=256, L=4, NH=4, steps=15, warmup=3, threads=2).items():
        ap.add_argument("--" + k, type=int, default=v)
    ap.add_argument("--pos", choices=["learned", "alibi"], default="learned",
                    help="learned position table, or ALiBi's bias in eager attention")
    ap.add_argument("--autocast", action="store_true",
                    help='forward under torch.autocast("cpu", dtype=torch.bfloat16)')
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    ids = array.array("i")
    with open(a.ids, "rb") as f:
        ids.frombytes(f.read())
    data = torch.tensor(ids, dtype=torch.long)
    nwin = len(range(0, len(data) - a.T, a.T))

    model = GPT(a.V, a.T, a.C, a.L, a.NH, a.pos)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    other = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": other, "weight_decay": 0.0}],
                            lr=3e-4, betas=(0.9, 0.95), eps=1e-8)
    def autocast():
        if a.autocast:
            return torch.autocast("cpu", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    ms, cpu, losses = [], [], []
    for i in range(a.warmup + a.steps):
        w = [((i * a.B + r) % (nwin - nwin % a.B)) * a.T for r in range(a.B)]
        x = torch.stack([data[s:s + a.T] for s in w])
        y = torch.stack([data[s + 1:s + a.T + 1] for s in w])
        t0, c0 = time.perf_counter(), time.process_time()
        with autocast():
            loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        losses.append(loss.item())
        if i >= a.warmup:
            ms.append(1e3 * dt)
            cpu.append(1e3 * dc)
    med = statistics.median(ms)
    N = 12 * a.L * a.C * a.C + a.V * a.C  # as bench_train (the position table left out)
    flop = 6 * N * a.B * a.T + 12 * a.L * a.T * a.C * a.B * a.T
    print(json.dumps(dict(impl="torch", pos=a.pos, attention="eager", precision="bf16" if a.autocast else "fp32",
                          threads=torch.get_num_threads(),
                          steps_ms=[round(v, 3) for v in ms], ms=round(med, 3),
                          cpu_ms=round(statistics.median(cpu), 3),
                          tokens_per_s=round(a.B * a.T / (med / 1e3), 1), gflop=round(flop / 1e9, 3),
                          rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                          loss_first=round(losses[0], 4), loss_last=round(losses[-1], 4),
                          torch=torch.__version__)))


if __name__ == "__main__":
    main()
