#!/usr/bin/python3
"""PyTorch reference for ordo: a GPT-2-style decoder with every position scheme.

Written from the conventions in docs/positions.md and docs/checkpoints.md; the
golden fixtures in tests/ref/fixtures/ are produced from this file by make_fixtures.py.
Run with the Debian interpreter: /usr/bin/python3 (torch 1.13, numpy).

    /usr/bin/python3 tests/ref/gpt_ref.py --selftest
    /usr/bin/python3 tests/ref/gpt_ref.py --check-checkpoint runs/x/ckpt-100.safetensors \
        --idx "1 2 3 4; 5 6 7 8" [--targets "..."] [--compare FILE] [--dump FILE]

Model (pre-LN GPT-2, tied LM head):
    x = embed_scale * wte[idx] (+ wpe[0..T-1] for learned) (+ sinusoidal table for sinusoidal)
    for each block: x = x + attn(ln_1(x)); x = x + mlp(ln_2(x))
    logits = ln_f(x) @ wte.T ; loss = mean cross-entropy over targets >= 0
embed_scale is 1 (GPT-2) unless the config says otherwise; the tied head uses wte unscaled.

Parameter names and layouts are those of the Hugging Face GPT-2 checkpoints without the
"transformer." prefix (Conv1D weights are [in, out]), plus rel_bias.weight [32, NH] for t5,
fire.{fc1,fc2}.{weight,bias}, fire.c, fire.L_multiplier for fire and kerple.r1, kerple.r2 for
kerple and kerple-power, h.{l}.attn.fgate.{weight [C, NH], bias [NH]} for fox,
h.{l}.attn.cope.pos_emb [NH, P, hs] for cope (docs/positions.md).
"""

import argparse
import math
import os
import sys
import types

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_py  # noqa: E402

POS_SCHEMES = ("none", "learned", "sinusoidal", "rope", "alibi", "t5",
               "fire", "kerple", "xpos", "kerple-power", "fox", "dpb", "cope", "sandwich")
BIAS_SCHEMES = ("alibi", "t5", "fire", "kerple", "kerple-power", "fox", "dpb", "cope", "sandwich")
ROPE_SCALINGS = ("none", "pi", "ntk", "yarn", "dynamic-ntk")
LN_EPS = 1e-5
T5_NUM_BUCKETS = 32
T5_MAX_DISTANCE = 128
# YaRN's ramp (beta_slow, beta_fast) as the paper and jquesnelle/yarn (ordo --yarn-alpha/-beta)
YARN_ALPHA = 1.0
YARN_BETA = 32.0
BASE = 10000.0
# FIRE (Li et al. 2023, appendix module)
FIRE_WIDTH = 32
FIRE_INIT_C = 0.1
FIRE_INIT_L = 512.0
FIRE_EPS = 1e-6
# Kerple (Chi et al. 2022, official code chijames/KERPLE): clamp, in place, before each forward
KERPLE_EPS = 1e-2
KERPLE_POWER_MAX = 2.0
# xPos (Sun et al. 2022, torchscale XPOS)
XPOS_SCALE_BASE = 512.0
# dynamic position bias (x-transformers DynamicPositionBias): ordo's --dpb-dim, --dpb-depth
DPB_DIM = 32
DPB_DEPTH = 2


def subset_options(meta):
    """The position options' keys of ordo's flat metadata (absent: the defaults)."""
    return {"rope_fraction": float(meta.get("rope_fraction", 1.0)), "rope_heads": int(meta.get("rope_heads", 0)),
            "alibi_heads": int(meta.get("alibi_heads", 0)), "pos_scale": meta.get("pos_scale", "none"),
            "dpb_dim": int(meta.get("dpb_dim", DPB_DIM)), "dpb_depth": int(meta.get("dpb_depth", DPB_DEPTH)),
            "dpb_log_distance": meta.get("dpb_log_distance", "0") == "1",
            "pos_random": int(meta.get("pos_random", 0)), "cope_max": int(meta.get("cope_max", 0)),
            "t5_max_distance": int(meta.get("t5_max_distance", T5_MAX_DISTANCE)),
            "yarn_alpha": float(meta.get("yarn_alpha", YARN_ALPHA)),
            "yarn_beta": float(meta.get("yarn_beta", YARN_BETA)),
            "yarn_temperature": meta.get("yarn_temperature", "1") != "0",
            "fox_gate_bias": float(meta.get("fox_gate_bias", 0.0))}


class GPTConfig:
    def __init__(self, V, C, L, NH, T_max, pos, embed_scale=1.0, untied_head=False, rope_scaling="none",
                 rope_factor=1.0, rope_orig=0, rope_fraction=1.0, rope_heads=0, alibi_heads=0,
                 pos_scale="none", dpb_dim=DPB_DIM, dpb_depth=DPB_DEPTH, dpb_log_distance=False,
                 pos_random=0, cope_max=0, t5_max_distance=T5_MAX_DISTANCE, yarn_alpha=YARN_ALPHA,
                 yarn_beta=YARN_BETA, yarn_temperature=True, fox_gate_bias=0.0):
        V, C, L, NH, T_max = int(V), int(C), int(L), int(NH), int(T_max)
        if pos not in POS_SCHEMES:
            raise ValueError("unknown position scheme %r (one of %s)" % (pos, ", ".join(POS_SCHEMES)))
        if C % NH != 0:
            raise ValueError("C=%d is not divisible by NH=%d" % (C, NH))
        if pos in ("rope", "xpos") and (C // NH) % 2 != 0:
            raise ValueError("%s needs an even head dim, got C/NH=%d" % (pos, C // NH))
        self.V, self.C, self.L, self.NH, self.T_max, self.pos = int(V), int(C), int(L), int(NH), int(T_max), pos
        # token embeddings are multiplied by this before positions join; the tied head is unscaled
        self.embed_scale = float(embed_scale)
        # a separate LM head lm_head.weight [V, C] instead of wte (ordo train --untied-head)
        self.untied_head = bool(untied_head)
        # rope scaling (ordo --rope-scaling/--rope-factor/--rope-orig-context); orig 0 = T_max
        if rope_scaling not in ROPE_SCALINGS:
            raise ValueError("unknown rope scaling %r (one of %s)" % (rope_scaling, ", ".join(ROPE_SCALINGS)))
        if rope_scaling != "none" and pos != "rope":
            raise ValueError("rope scaling %s needs pos=rope, not %s" % (rope_scaling, pos))
        self.rope_scaling, self.rope_factor = rope_scaling, float(rope_factor)
        self.rope_orig = int(rope_orig) or self.T_max
        # YaRN's ramp ends and temperature (the paper's unless set; yarn only)
        self.yarn_alpha, self.yarn_beta = float(yarn_alpha), float(yarn_beta)
        self.yarn_temperature = bool(yarn_temperature)
        if (self.yarn_alpha, self.yarn_beta, self.yarn_temperature) != (YARN_ALPHA, YARN_BETA, True) and \
                rope_scaling != "yarn":
            raise ValueError("yarn_alpha, yarn_beta, yarn_temperature need rope_scaling yarn")
        # partial rotary (GPT-NeoX rotary_pct), rope / alibi on the first k heads
        # (0 = all; x-transformers alibi_num_heads), a scale on the absolute positions
        self.rope_fraction = float(rope_fraction)
        if not 0 < self.rope_fraction <= 1:
            raise ValueError("rope_fraction %r, expected 0 < f <= 1" % rope_fraction)
        if self.rope_fraction != 1 and pos != "rope":
            raise ValueError("rope_fraction needs pos=rope, not %s" % pos)
        if self.rope_dims < 2:
            raise ValueError("rope_fraction %g rotates no dims of a head of %d" % (self.rope_fraction, self.hs))
        self.rope_heads = int(rope_heads) or self.NH
        self.alibi_heads = int(alibi_heads) or self.NH
        for what, k, need in (("rope_heads", self.rope_heads, "rope"), ("alibi_heads", self.alibi_heads, "alibi")):
            if not 1 <= k <= self.NH or (k != self.NH and pos != need):
                raise ValueError("%s %d: expected 1..NH for pos=%s" % (what, k, need))
        # "none", "fixed:X", "learned:INIT" (INIT 0 or absent = C^-0.5, x-transformers)
        kind, _, val = (pos_scale or "none").partition(":")
        if kind not in ("none", "fixed", "learned") or (kind != "none" and pos not in ("learned", "sinusoidal")):
            raise ValueError("pos_scale %r: none, fixed:X or learned[:INIT] for learned/sinusoidal" % pos_scale)
        self.pos_scale_kind = kind
        self.pos_scale_value = float(val) if val else (self.C ** -0.5 if kind == "learned" else 1.0)
        if kind == "learned":  # as ordo stores the init: a float32
            self.pos_scale_value = float(torch.tensor(self.pos_scale_value, dtype=torch.float32))
        # dpb: the MLP's width, hidden layers and log-distance input
        self.dpb_dim, self.dpb_depth, self.dpb_log_distance = int(dpb_dim), int(dpb_depth), bool(dpb_log_distance)
        if pos != "dpb" and (self.dpb_dim, self.dpb_depth, self.dpb_log_distance) != (DPB_DIM, DPB_DEPTH, False):
            raise ValueError("dpb options need pos=dpb, not %s" % pos)
        # --pos-random: trained at random positions of [0, N) (Ruoss et al. 2023); the model
        # takes them as forward(positions=...). learned: the table has N rows (T_max = N)
        # The relative schemes take the drawn positions' differences (FIRE's normaliser the
        # query's position; dpb's MLP, t5's buckets over the distances 0..N-1; xpos rotates
        # and decays at each token's position); none and fox have no positions to draw.
        self.pos_random = int(pos_random)
        if self.pos_random and (pos in ("none", "fox", "cope") or
                                (pos == "learned" and self.T_max != self.pos_random)):
            raise ValueError("pos_random %d: not for none, fox or cope; learned needs T_max = N" % self.pos_random)
        # cope: its positions 0..P-1 (0: T_max + 1, the official block_size + 1)
        if int(cope_max) and pos != "cope":
            raise ValueError("cope_max needs pos=cope, not %s" % pos)
        self.cope_max = int(cope_max) or self.T_max + 1
        # t5: where the log-spaced buckets end (HF relative_attention_max_distance)
        self.t5_max_distance = int(t5_max_distance)
        if self.t5_max_distance <= T5_NUM_BUCKETS // 2 or (self.t5_max_distance != T5_MAX_DISTANCE and pos != "t5"):
            raise ValueError("t5_max_distance %d: above %d, for pos=t5" % (self.t5_max_distance, T5_NUM_BUCKETS // 2))
        # fox: the gates' initial bias (the paper's code: 0, its nn.Linear under _init_weights)
        self.fox_gate_bias = float(fox_gate_bias)
        if self.fox_gate_bias != 0 and pos != "fox":
            raise ValueError("fox_gate_bias %g needs pos=fox, not %s" % (self.fox_gate_bias, pos))

    @property
    def rope_dims(self):
        """Rotated dims per head: 2 * round(f * hs / 2) (hs when f = 1)."""
        return self.hs if self.rope_fraction == 1 else 2 * int(math.floor(self.rope_fraction * self.hs / 2 + 0.5))

    @property
    def hs(self):
        return self.C // self.NH

    def as_metadata(self):
        m = {"V": str(self.V), "C": str(self.C), "L": str(self.L), "NH": str(self.NH),
             "T_max": str(self.T_max), "pos": self.pos}
        if self.embed_scale != 1.0:  # as ordo writes it: only when it is not GPT-2's 1
            m["embed_scale"] = repr(self.embed_scale)
        if self.untied_head:  # as ordo writes it: only for an untied head
            m["untied_head"] = "1"
        if self.rope_scaling != "none":  # as ordo writes it: only with a scaling
            m.update({"rope_scaling": self.rope_scaling, "rope_factor": "%.17g" % self.rope_factor,
                      "rope_orig_context": str(self.rope_orig)})
            if self.yarn_alpha != YARN_ALPHA:  # YaRN's options only when not the paper's
                m["yarn_alpha"] = "%.17g" % self.yarn_alpha
            if self.yarn_beta != YARN_BETA:
                m["yarn_beta"] = "%.17g" % self.yarn_beta
            if not self.yarn_temperature:
                m["yarn_temperature"] = "0"
        if self.rope_fraction != 1:  # the position options, each only when set, as ordo writes them
            m["rope_fraction"] = "%.17g" % self.rope_fraction
        if self.rope_heads != self.NH:
            m["rope_heads"] = str(self.rope_heads)
        if self.alibi_heads != self.NH:
            m["alibi_heads"] = str(self.alibi_heads)
        if self.pos_scale_kind != "none":
            m["pos_scale"] = "%s:%.9g" % (self.pos_scale_kind, self.pos_scale_value)
        if self.pos == "dpb":  # always for dpb, as ordo writes them
            m.update({"dpb_dim": str(self.dpb_dim), "dpb_depth": str(self.dpb_depth),
                      "dpb_log_distance": "1" if self.dpb_log_distance else "0"})
        if self.pos_random:
            m["pos_random"] = str(self.pos_random)
        if self.pos == "cope":  # always for cope, as ordo writes it
            m["cope_max"] = str(self.cope_max)
        if self.t5_max_distance != T5_MAX_DISTANCE:  # only when set, as ordo writes it
            m["t5_max_distance"] = str(self.t5_max_distance)
        if self.fox_gate_bias != 0:  # only when set, as ordo writes it ("%.17g")
            m["fox_gate_bias"] = "%.17g" % self.fox_gate_bias
        return m

    @staticmethod
    def from_metadata(meta):
        """The config that ordo's metadata keys describe (as_metadata's inverse)."""
        return GPTConfig(meta["V"], meta["C"], meta["L"], meta["NH"], meta["T_max"], meta["pos"],
                         float(meta.get("embed_scale", 1.0)), meta.get("untied_head") == "1",
                         meta.get("rope_scaling", "none"),
                         float(meta.get("rope_factor", 1.0)), int(meta.get("rope_orig_context", 0)),
                         **subset_options(meta))

    def __repr__(self):
        return "GPTConfig(V=%d, C=%d, L=%d, NH=%d, T_max=%d, pos=%s%s)" % (
            self.V, self.C, self.L, self.NH, self.T_max, self.pos,
            ("" if self.embed_scale == 1.0 else ", embed_scale=%g" % self.embed_scale) +
            (", untied_head" if self.untied_head else ""))


# --------------------------------------------------------------------------------------------
# Position schemes
# --------------------------------------------------------------------------------------------

def sinusoidal_table(T, C, dtype=torch.float32, positions=None):
    """[T, C] table of Vaswani et al.: PE(p, 2i) = sin(p / 10000^(2i/C)), PE(p, 2i+1) = cos(same).

    p = 0..T-1, or positions [B, T] (then [B, T, C]). Computed in float64, then cast to `dtype`."""
    p = (torch.arange(T) if positions is None else positions).to(torch.float64)[..., None]
    two_i = (torch.arange(C, dtype=torch.float64) // 2) * 2          # 0,0,2,2,4,4,...
    angle = p / torch.pow(torch.tensor(BASE, dtype=torch.float64), two_i / C)[None, :]
    even = (torch.arange(C) % 2 == 0)[None, :]
    pe = torch.where(even, torch.sin(angle), torch.cos(angle))
    return pe.to(dtype)


def rope_inv_freq(hs, scaling="none", factor=1.0, orig=0, T=0, yarn_alpha=YARN_ALPHA, yarn_beta=YARN_BETA,
                  yarn_temperature=True):
    """[hs/2] float64 inverse frequencies under a scaling, and the factor on q and k (mscale).

    none: theta_i = 10000^(-2i/hs). pi: theta_i / s (Chen et al.: positions divided by s).
    ntk: (10000 * s^(hs/(hs-2)))^(-2i/hs). yarn: jquesnelle/yarn LlamaYaRNScaledRotaryEmbedding
    (= HF transformers _compute_yarn_parameters) with beta_fast 32, beta_slow 1 and
    original_max_position_embeddings = orig, in float64 (the reference rounds its frequencies
    to float32); mscale 0.1 ln s + 1 on cos and sin, i.e. on q and k. dynamic-ntk: HF
    transformers' DynamicNTKScalingRotaryEmbedding (Peng et al. 2023 B.3) for a sequence of
    length T: up to orig unscaled; past it ntk with base * (s T / orig - (s - 1))^(hs/(hs-2)),
    s its scaling_factor. yarn_alpha, yarn_beta: YaRN's beta_slow and beta_fast (ordo's
    --yarn-alpha, --yarn-beta); yarn_temperature False: mscale 1 (--yarn-no-temperature)."""
    i = torch.arange(hs // 2, dtype=torch.float64)
    base = torch.tensor(BASE, dtype=torch.float64)
    s = float(factor)
    if scaling == "none":
        return torch.pow(base, -2.0 * i / hs), 1.0
    if scaling == "pi":
        return torch.pow(base, -2.0 * i / hs) / s, 1.0
    if scaling == "ntk":
        return torch.pow(base * s ** (hs / (hs - 2)), -2.0 * i / hs), 1.0
    if scaling == "dynamic-ntk":
        if T <= orig:
            return torch.pow(base, -2.0 * i / hs), 1.0
        b = base * (s * T / orig - (s - 1)) ** (hs / (hs - 2))
        return torch.pow(b, -2.0 * i / hs), 1.0
    if scaling != "yarn":
        raise ValueError("unknown rope scaling %r" % scaling)

    def correction_dim(rotations):
        return (hs * math.log(orig / (rotations * 2 * math.pi))) / (2 * math.log(BASE))
    low = max(math.floor(correction_dim(yarn_beta)), 0)
    high = min(math.ceil(correction_dim(yarn_alpha)), hs - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((i - low) / (high - low), 0, 1)
    pos_freqs = torch.pow(base, 2.0 * i / hs)
    extra = 1 - ramp                       # 1: keep theta_i (high frequencies), 0: interpolate
    inv = 1.0 / (s * pos_freqs) * (1 - extra) + 1.0 / pos_freqs * extra
    return inv, (1.0 if s <= 1 or not yarn_temperature else 0.1 * math.log(s) + 1.0)


def rope_angles(T, hs, inv_freq=None, positions=None):
    """[T, hs/2] float64 angles: angle[p, i] = p * theta_i, theta_i = 10000^(-2i/hs) (or inv_freq).
    p = 0..T-1, or positions [B, T] (then [B, 1, T, hs/2]: broadcast over the heads)."""
    theta = rope_inv_freq(hs)[0] if inv_freq is None else inv_freq
    if positions is not None:
        return positions.to(torch.float64)[:, None, :, None] * theta
    p = torch.arange(T, dtype=torch.float64)
    return p[:, None] * theta[None, :]


def rope_cos_sin(T, hs, dtype=torch.float32, scaling="none", factor=1.0, orig=0, yarn_alpha=YARN_ALPHA,
                 yarn_beta=YARN_BETA, yarn_temperature=True, positions=None):
    """mscale * cos, sin of rope_angles under a scaling, each [T, hs/2], in float64 then cast."""
    inv, mscale = rope_inv_freq(hs, scaling, factor, orig, T, yarn_alpha, yarn_beta, yarn_temperature)
    a = rope_angles(T, hs, inv, positions)
    return (mscale * torch.cos(a)).to(dtype), (mscale * torch.sin(a)).to(dtype)


def apply_rope(x, cos, sin):
    """Rotate-half RoPE on x [..., T, hs]: dim i pairs with i + hs/2 (GPT-NeoX / HF Llama).

        out[i]        = x[i] cos(a_i) - x[i+hs/2] sin(a_i)
        out[i+hs/2]   = x[i+hs/2] cos(a_i) + x[i] sin(a_i)        (i < hs/2, a_i = p theta_i)
    """
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def apply_rope_partial(x, cos, sin, rd, nrot):
    """GPT-NeoX's partial rotary (rotary_ndims = rd): x[..., :rd] rotated as apply_rope with
    tables of head size rd, x[..., rd:] passed through; on heads 0..nrot-1 of x [B, H, T, hs]
    only (rope on a subset of heads), the others untouched."""
    rot = torch.cat([apply_rope(x[..., :rd], cos, sin), x[..., rd:]], dim=-1)
    if nrot == x.shape[1]:
        return rot
    return torch.cat([rot[:, :nrot], x[:, nrot:]], dim=1)


def rope_qkv(qkv, NH):
    """Apply RoPE to the q and k parts of a fused qkv [B, T, 3C] (v untouched); returns [B, T, 3C]."""
    B, T, C3 = qkv.shape
    C = C3 // 3
    hs = C // NH
    cos, sin = rope_cos_sin(T, hs, qkv.dtype)
    q, k, v = qkv.split(C, dim=-1)
    q = apply_rope(q.view(B, T, NH, hs).transpose(1, 2), cos, sin).transpose(1, 2).reshape(B, T, C)
    k = apply_rope(k.view(B, T, NH, hs).transpose(1, 2), cos, sin).transpose(1, 2).reshape(B, T, C)
    return torch.cat([q, k, v], dim=-1)


def alibi_slopes(H):
    """Press et al. slopes (python floats), also for H not a power of 2.

    H = 2^k: m_h = 2^(-8h/H), h = 1..H. Otherwise P = 2^floor(log2 H): the P slopes of P,
    then slopes(2P)[0::2][:H-P]."""
    def pow2(n):
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]
    if H < 1:
        raise ValueError("alibi needs at least one head")
    P = 2 ** int(math.floor(math.log2(H)))
    if P == H:
        return pow2(H)
    return pow2(P) + pow2(2 * P)[0::2][:H - P]


def pair_distances(T, positions=None):
    """i - j as [T, T], or pos[b, i] - pos[b, j] as [B, T, T] at positions [B, T] (long)."""
    if positions is None:
        i = torch.arange(T)
        return i[:, None] - i[None, :]
    p = positions.long()
    return p[:, :, None] - p[:, None, :]


def alibi_bias(H, T, dtype=torch.float32, k=None, positions=None):
    """[H, T, T] with bias[h, i, j] = -m_h * (i - j) (only j <= i is used; the rest is masked);
    at positions [B, T]: [B, H, T, T] of -m_h * (pos[b, i] - pos[b, j]).

    k < H: x-transformers' AlibiPositionalBias(heads=k, total_heads=H): the slopes of k heads
    on heads 0..k-1, and zero bias (F.pad) on the other H - k."""
    k = H if k is None else k
    m = torch.tensor(alibi_slopes(k), dtype=torch.float64)
    dist = pair_distances(T, positions).to(torch.float64).unsqueeze(-3)   # [(B,) 1, T, T]
    bias = -m[:, None, None] * dist
    bias = F.pad(bias, (0, 0, 0, 0, 0, H - k))
    return bias.to(dtype)


def sandwich_bias(H, hs, T, dtype=torch.float32, positions=None):
    """Sandwich (Chi et al. 2023; NeMo's SandwichRelativePositionEmbedding): [H, T, T], or
    [B, H, T, T] at positions, of (sum_{k=1}^{hs/2} cos(d / 10000^(2k/hs)) - hs/2) / (h 8 / H)
    for head h = 1..H at distance d = i - j (cos is even: the sign of d does not matter)."""
    half = hs // 2
    d = pair_distances(T, positions).to(torch.float64).unsqueeze(-3)    # [(B,) 1, T, T]
    k = torch.arange(1, half + 1, dtype=torch.float64)
    s = torch.cos(d[..., None] / BASE ** (2 * k / (2 * half))).sum(-1) - half
    scale = torch.arange(1, H + 1, dtype=torch.float64) * 8 / H
    return (s / scale[:, None, None]).to(dtype)


def t5_bucket(n, num_buckets=T5_NUM_BUCKETS, max_distance=T5_MAX_DISTANCE):
    """T5 relative-position bucket, causal (HF _relative_position_bucket, bidirectional=False).

    n: integer tensor of distances i - j (query minus key). Negative n (future keys) -> 0.
    n < 16 -> n; else 16 + floor(log(n/16) / log(128/16) * 16), capped at 31.
    Computed exactly as HF does (float32 log); t5_bucket_py is the float64 cross-check."""
    n = torch.clamp(n.long(), min=0)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    large = max_exact + (torch.log(n.float() / max_exact)
                         / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.clamp(large, max=num_buckets - 1)
    return torch.where(is_small, n, large)


def t5_bucket_py(n, num_buckets=T5_NUM_BUCKETS, max_distance=T5_MAX_DISTANCE):
    n = max(int(n), 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return n
    b = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact))
    return min(b, num_buckets - 1)


def t5_bias(table, T, positions=None, max_distance=T5_MAX_DISTANCE):
    """table [32, H] -> [H, T, T] with bias[h, i, j] = table[bucket(i - j), h]; at positions
    [B, T]: [B, H, T, T] of table[bucket(pos[b, i] - pos[b, j]), h]."""
    buckets = t5_bucket(pair_distances(T, positions), max_distance=max_distance)  # [(B,) T, T]
    return table[buckets].movedim(-1, -3)                 # [(B,) H, T, T]


def xpos_scale(T, hs, dtype=torch.float32, positions=None, n_range=None):
    """[T, hs/2] xPos scale zeta_i^(n/512), zeta_i = (2i + 0.4 hs) / (1.4 hs), with the positions
    centred as torchscale's XPOS centres them: n = t + (-T // 2), t = 0..T-1 (float64, then cast).
    q is multiplied by it, k divided by it, so q_n . k_m carries zeta^((n - m)/512).
    At positions [B, T] drawn from [0, n_range): n = pos + (-n_range // 2), [B, 1, T, hs/2]."""
    zeta = (torch.arange(0, hs, 2, dtype=torch.float64) + 0.4 * hs) / (1.4 * hs)
    if positions is not None:
        n = (positions.to(torch.float64) + (-n_range // 2)) / XPOS_SCALE_BASE
        return (zeta ** n[:, None, :, None]).to(dtype)
    min_pos = -T // 2                                   # torchscale: -(length + offset) // 2
    n = torch.arange(min_pos, min_pos + T, dtype=torch.float64) / XPOS_SCALE_BASE
    return (zeta[None, :] ** n[:, None]).to(dtype)


def apply_xpos(x, cos, sin, scale, down):
    """RoPE (rotate-half, as apply_rope) then the xPos scale on x [..., T, hs]; both members of
    a pair (i, i + hs/2) take scale[:, i]. down: divide (keys) instead of multiply (queries).
    torchscale pairs dims interleaved (rotate_every_two); ordo pairs them as its rope does,
    which is the same model up to a fixed permutation of the q/k projection columns."""
    s = torch.cat([scale, scale], dim=-1)
    r = apply_rope(x, cos, sin)
    return r / s if down else r * s


class FIRE(nn.Module):
    """FIRE bias (Li et al. 2023, the appendix module), one module shared by all layers:

        b[h, i, j] = mlp(log(|c (i - j)| + 1) / (log(|c max(i, L)| + 1) + eps))[h],
        L = |L_multiplier * init_L|, i and j from 0, mlp = fc2(relu(fc1(.))) 1 -> 32 -> NH.

    fc1, fc2 are Conv1D ([in, out]) as every linear layer here; the paper's nn.Linear stores
    the transpose. init_L (512) is a constant, not a parameter. c and L_multiplier are [1]."""

    def __init__(self, NH, width=FIRE_WIDTH):
        super().__init__()
        self.fc1 = Conv1D(1, width)
        self.fc2 = Conv1D(width, NH)
        self.c = nn.Parameter(torch.tensor([FIRE_INIT_C]))
        self.L_multiplier = nn.Parameter(torch.tensor([1.0]))

    def forward(self, T, positions=None):
        """[NH, T, T]; at positions [B, T] (the query's position in the normaliser): [B, NH, T, T]."""
        positions = torch.arange(T) if positions is None else positions
        positions = positions.to(self.c.dtype)
        rel = positions[..., :, None] - positions[..., None, :]
        threshold = torch.abs(self.L_multiplier * FIRE_INIT_L)
        normalizer = torch.max(positions, threshold)[..., :, None]
        rel = torch.log(torch.abs(self.c * rel) + 1)
        normalizer = torch.log(torch.abs(self.c * normalizer) + 1) + FIRE_EPS
        u = (rel / normalizer).unsqueeze(-1)                     # [(B,) T, T, 1]
        return self.fc2(torch.relu(self.fc1(u))).movedim(-1, -3)  # [(B,) NH, T, T]


class DynamicPositionBias(nn.Module):
    """x-transformers' DynamicPositionBias (lucidrains/x-transformers, x_transformers.py), with
    norm=False, one module shared by all layers: the MLP Linear(1, dim) + SiLU, (depth - 1) x
    [Linear(dim, dim) + SiLU], Linear(dim, heads) of every relative position -(T-1)..T-1
    (sign(d) log(|d| + 1) with log_distance), gathered by i - j:

        bias[h, i, j] = mlp(i - j)[h]

    Written as the reference's forward (positions arange(-T + 1, T), indices i - j + T - 1).
    The layers are Conv1D ([in, out]) as every linear layer here: ordo's dpb.mlp.k.weight is
    the transpose of the reference's mlp[k][0].weight (mlp[depth].weight for the last)."""

    def __init__(self, NH, dim=DPB_DIM, depth=DPB_DEPTH, log_distance=False):
        super().__init__()
        self.log_distance = log_distance
        sizes = [1] + [dim] * depth + [NH]
        self.mlp = nn.ModuleList([Conv1D(sizes[k], sizes[k + 1]) for k in range(depth + 1)])

    def forward(self, T, positions=None, n_range=None):
        """[NH, T, T]; at positions [B, T] drawn from [0, n_range): the MLP of every relative
        position -(n_range-1)..n_range-1, gathered by pos[b, i] - pos[b, j]: [B, NH, T, T]."""
        dtype = self.mlp[0].weight.dtype
        n = T if positions is None else n_range
        indices = pair_distances(T, positions) + (n - 1)            # i - j + (n - 1)
        pos = torch.arange(-n + 1, n, dtype=dtype)[:, None]         # [2n - 1, 1]
        if self.log_distance:
            pos = torch.sign(pos) * torch.log(pos.abs() + 1)
        for k, layer in enumerate(self.mlp):
            pos = layer(pos)
            if k < len(self.mlp) - 1:
                pos = F.silu(pos)
        return pos[indices].movedim(-1, -3)                        # [(B,) NH, T, T]


class Kerple(nn.Module):
    """Kerple bias (Chi et al. 2022), per head, d = i - j (0 above the diagonal, masked anyway):
    log: -r1 log(1 + r2 d); power: -r1 d^r2. As the official code, r1 and r2 are clamped in
    place to >= 0.01 before every forward (the power exponent r2 also to <= 2)."""

    def __init__(self, NH, power):
        super().__init__()
        self.power = power
        self.r1 = nn.Parameter(torch.ones(NH))
        self.r2 = nn.Parameter(torch.ones(NH))

    def forward(self, T, positions=None):
        """[NH, T, T]; at positions [B, T]: [B, NH, T, T] of d = pos[b, i] - pos[b, j]."""
        with torch.no_grad():
            self.r1.data.clamp_(min=KERPLE_EPS)
            self.r2.data.clamp_(min=KERPLE_EPS, max=KERPLE_POWER_MAX if self.power else None)
        diff = torch.tril(pair_distances(T, positions)).to(self.r1.dtype).unsqueeze(-3)  # [(B,) 1, T, T]
        r1, r2 = self.r1[:, None, None], self.r2[:, None, None]
        if self.power:
            return -r1 * diff.pow(r2)
        return -r1 * torch.log(1 + r2 * diff)


# --------------------------------------------------------------------------------------------
# Ops
# --------------------------------------------------------------------------------------------

def fox_bias(fgate_logit):
    """The Forgetting Transformer's bias [B, NH, T, T] from the gate logits [B, T, NH], as the
    reference (zhixuan-lin/forgetting-transformer: log_fgate = logsigmoid(fgate_proj(h)),
    log_lambda = cumsum(log_fgate, -1), bias = log_lambda[..., :, None] - log_lambda[..., None,
    :]): sum of log f_l over l = j+1..i; the causal mask drops j > i."""
    log_fgate = F.logsigmoid(fgate_logit).transpose(1, 2)     # [B, NH, T]
    log_lambda = torch.cumsum(log_fgate, dim=-1)
    return log_lambda[..., :, None] - log_lambda[..., None, :]


class CoPE(nn.Module):
    """CoPE as the paper's reference code (Golovneva et al. 2024, "Contextual Position Encoding:
    Learning to Count What's Important", the appendix's class; facebookresearch/RAM
    projects/cope): one head, pos_emb [1, head_dim, npos_max], zero init. forward(query,
    attn_logits) with query [.., T, hs] unscaled and attn_logits [.., T, T] = q k^T / sqrt(hs)
    with the causal mask's log already added (masked gates are sigmoid(-inf) = 0)."""

    def __init__(self, npos_max, head_dim):
        super().__init__()
        self.npos_max = npos_max
        self.pos_emb = nn.parameter.Parameter(torch.zeros(1, head_dim, npos_max))

    def forward(self, query, attn_logits):
        # compute positions
        gates = torch.sigmoid(attn_logits)
        pos = gates.flip(-1).cumsum(dim=-1).flip(-1)
        pos = pos.clamp(max=self.npos_max - 1)
        # interpolate from integer positions
        pos_ceil = pos.ceil().long()
        pos_floor = pos.floor().long()
        logits_int = torch.matmul(query, self.pos_emb)
        logits_ceil = logits_int.gather(-1, pos_ceil)
        logits_floor = logits_int.gather(-1, pos_floor)
        w = pos - pos_floor
        return logits_ceil * w + logits_floor * (1 - w)


class CoPEHeads(nn.Module):
    """ordo's cope: one CoPE per head (the reference shares one pos_emb by every head of a
    layer), stored as pos_emb [NH, P, hs]; head h runs the reference's forward with its own
    table, pos_emb[h].T as [1, hs, P]."""

    def __init__(self, NH, P, hs):
        super().__init__()
        self.npos_max = P
        self.pos_emb = nn.Parameter(torch.zeros(NH, P, hs))

    def forward(self, q, attn_logits):
        """q [B, NH, T, hs], attn_logits [B, NH, T, T] -> the bias [B, NH, T, T]."""
        out = []
        for h in range(q.shape[1]):  # the reference's forward, verbatim, with head h's table
            head = types.SimpleNamespace(npos_max=self.npos_max, pos_emb=self.pos_emb[h].t().unsqueeze(0))
            out.append(CoPE.forward(head, q[:, h], attn_logits[:, h]))
        return torch.stack(out, dim=1)


def cope_attention(q, k, v, cope):
    """The reference's attention: attn_logits = q k^T / sqrt(hs); += mask.log(); += cope(q,
    attn_logits); softmax; @ v. q, k, v [B, NH, T, hs]."""
    T, hs = q.shape[-2], q.shape[-1]
    attn_logits = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
    mask = torch.ones(T, T, dtype=q.dtype).tril()
    attn_logits = attn_logits + mask.log()
    attn_logits = attn_logits + cope(q, attn_logits)
    return torch.softmax(attn_logits, dim=-1) @ v


def gelu(x):
    """GELU, tanh approximation (GPT-2): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return F.gelu(x, approximate="tanh")


def causal_attention(q, k, v, bias=None):
    """q, k, v [B, H, T, hs]; bias [H, T, T] added after the 1/sqrt(hs) scaling; mask j > i."""
    T, hs = q.shape[-2], q.shape[-1]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
    if bias is not None:
        scores = scores + bias
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def attention_from_qkv(qkv, NH, pos="none", table=None, rope=("none", 1.0, 0), bias=None, rd=None, nrot=None,
                       alibi_heads=None, positions=None, pos_range=None, cope=None,
                       t5_max_distance=T5_MAX_DISTANCE):
    """The whole attention core on a fused qkv [B, T, 3C] -> y [B, T, C] (before c_proj).

    q, k, v = split(qkv, C) in that order; head h uses columns h*hs:(h+1)*hs of each.
    bias: a ready [NH, T, T] bias (fire, kerple), made once per forward for all layers."""
    B, T, C3 = qkv.shape
    C = C3 // 3
    hs = C // NH
    q, k, v = qkv.split(C, dim=-1)
    q = q.view(B, T, NH, hs).transpose(1, 2)
    k = k.view(B, T, NH, hs).transpose(1, 2)
    v = v.view(B, T, NH, hs).transpose(1, 2)
    if pos == "rope":
        rd = hs if rd is None else rd
        nrot = NH if nrot is None else nrot
        cos, sin = rope_cos_sin(T, rd, qkv.dtype, *rope, positions=positions)  # over rd (GPT-NeoX)
        q, k = apply_rope_partial(q, cos, sin, rd, nrot), apply_rope_partial(k, cos, sin, rd, nrot)
    elif pos == "xpos":
        cos, sin = rope_cos_sin(T, hs, qkv.dtype, positions=positions)
        scale = xpos_scale(T, hs, qkv.dtype, positions, pos_range)
        q, k = apply_xpos(q, cos, sin, scale, False), apply_xpos(k, cos, sin, scale, True)
    elif pos == "alibi":
        bias = alibi_bias(NH, T, qkv.dtype, alibi_heads, positions)
    elif pos == "t5":
        bias = t5_bias(table, T, positions, t5_max_distance)
    elif pos == "sandwich":
        bias = sandwich_bias(NH, hs, T, qkv.dtype, positions)
    y = cope_attention(q, k, v, cope) if pos == "cope" else causal_attention(q, k, v, bias)
    return y.transpose(1, 2).reshape(B, T, C)


def cross_entropy(logits, targets):
    """Mean cross-entropy over rows whose target is >= 0 (targets < 0 are ignored).

    logits [..., V], targets [...] (integer). Same as F.cross_entropy(ignore_index=-1) when
    the only negative target is -1. If every target is ignored the result is 0/0 = NaN, as in
    PyTorch."""
    V = logits.shape[-1]
    logits = logits.reshape(-1, V)
    targets = targets.reshape(-1).long()
    keep = targets >= 0
    nll = -torch.log_softmax(logits, dim=-1).gather(1, targets.clamp(min=0)[:, None])[:, 0]
    nll = torch.where(keep, nll, torch.zeros_like(nll))
    return nll.sum() / keep.sum()


# --------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------

class Conv1D(nn.Module):
    """HF GPT-2 Conv1D: y = x @ weight + bias, weight [in, out]."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.c_attn = Conv1D(cfg.C, 3 * cfg.C)
        self.c_proj = Conv1D(cfg.C, cfg.C)
        if cfg.pos == "fox":  # the paper's fgate_proj = nn.Linear(hidden, num_heads, bias=True)
            self.fgate = Conv1D(cfg.C, cfg.NH)
        if cfg.pos == "cope":  # a table per head in every layer: h.{l}.attn.cope.pos_emb
            self.cope = CoPEHeads(cfg.NH, cfg.cope_max, cfg.hs)

    def forward(self, h, rel_table=None, bias=None, positions=None, pos_range=None):
        qkv = self.c_attn(h)                                  # [B, T, 3C]
        c = self.cfg
        if c.pos == "fox":
            bias = fox_bias(self.fgate(h))
        rope = (c.rope_scaling, c.rope_factor, c.rope_orig, c.yarn_alpha, c.yarn_beta, c.yarn_temperature)
        y = attention_from_qkv(qkv, c.NH, c.pos, rel_table, rope,
                               bias, c.rope_dims, c.rope_heads, c.alibi_heads, positions, pos_range,
                               self.cope if c.pos == "cope" else None, c.t5_max_distance)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_fc = Conv1D(cfg.C, 4 * cfg.C)
        self.c_proj = Conv1D(4 * cfg.C, cfg.C)

    def forward(self, x):
        return self.c_proj(gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.C, eps=LN_EPS)
        self.attn = Attention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.C, eps=LN_EPS)
        self.mlp = MLP(cfg)

    def forward(self, x, rel_table=None, bias=None, positions=None, pos_range=None):
        x = x + self.attn(self.ln_1(x), rel_table, bias, positions, pos_range)
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.wte = nn.Embedding(cfg.V, cfg.C)
        if cfg.pos == "learned":
            self.wpe = nn.Embedding(cfg.T_max, cfg.C)
        elif cfg.pos_scale_kind == "learned":
            self.wpe = nn.Module()                     # holds wpe.scale alone (sinusoidal)
        if cfg.pos_scale_kind == "learned":  # x-transformers: ones(1) * dim^-0.5
            self.wpe.scale = nn.Parameter(torch.full((1,), cfg.pos_scale_value))
        self.h = nn.ModuleList([Block(cfg) for _ in range(cfg.L)])
        self.ln_f = nn.LayerNorm(cfg.C, eps=LN_EPS)
        if cfg.pos == "t5":
            self.rel_bias = nn.Embedding(T5_NUM_BUCKETS, cfg.NH)
        if cfg.untied_head:  # registered last: drawn after every other weight
            self.lm_head = nn.Linear(cfg.C, cfg.V, bias=False)  # weight [V, C], HF's lm_head
        if cfg.pos == "fire":
            self.fire = FIRE(cfg.NH)
        if cfg.pos in ("kerple", "kerple-power"):
            self.kerple = Kerple(cfg.NH, cfg.pos == "kerple-power")
        if cfg.pos == "dpb":
            self.dpb = DynamicPositionBias(cfg.NH, cfg.dpb_dim, cfg.dpb_depth, cfg.dpb_log_distance)
        self.init_gpt2()

    @torch.no_grad()
    def init_gpt2(self, std=0.02):
        """GPT-2 style init (not used by the fixtures, which draw their own weights)."""
        for name, p in self.named_parameters():
            if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight":
                p.fill_(1.0)
            elif name.endswith("attn.fgate.bias"):              # fox: 0 unless fox_gate_bias
                p.fill_(self.cfg.fox_gate_bias)
            elif name.endswith(".bias"):
                p.zero_()
            elif name == "wpe.scale":
                p.fill_(self.cfg.pos_scale_value)
            elif name == "rel_bias.weight":
                p.zero_()                                       # DESIGN: t5 table starts at zero
            elif name.startswith("fire."):                      # nn.Linear's default; c, L_mult
                fan_in = 1 if name.startswith("fire.fc1") else FIRE_WIDTH
                if name in ("fire.c", "fire.L_multiplier"):
                    p.fill_(FIRE_INIT_C if name == "fire.c" else 1.0)
                else:
                    p.uniform_(-fan_in ** -0.5, fan_in ** -0.5)
            elif name.startswith("dpb."):                       # nn.Linear's default
                fan_in = 1 if name.startswith("dpb.mlp.0.") else self.cfg.dpb_dim
                p.uniform_(-fan_in ** -0.5, fan_in ** -0.5)
            elif name.startswith("kerple."):                    # official: U(0,2) and U(0,1)
                power = self.cfg.pos == "kerple-power"
                p.uniform_(0.0, 2.0 if (name == "kerple.r1") != power else 1.0)
            elif name.endswith("c_proj.weight"):
                p.normal_(0.0, std / math.sqrt(2 * self.cfg.L))
            else:
                p.normal_(0.0, std)

    def forward(self, idx, targets=None, positions=None):
        """positions: [B, T] ids per sequence (--pos-random's drawn ones; every scheme but none
        and fox; increasing along a row for the relative ones), or None for 0..T-1."""
        B, T = idx.shape
        cfg = self.cfg
        if positions is not None and cfg.pos in ("none", "fox"):
            raise ValueError("positions need a scheme with positions, not %s" % cfg.pos)
        # the range the positions are drawn from: N (pos_random), or past the largest given
        pos_range = None if positions is None else max(cfg.pos_random, int(positions.max()) + 1)
        if cfg.pos == "learned" and T > cfg.T_max:
            raise ValueError("pos=learned: the position table has T_max=%d rows, cannot evaluate "
                             "a sequence of length T=%d" % (cfg.T_max, T))
        x = self.wte(idx)
        if cfg.embed_scale != 1.0:
            x = x * cfg.embed_scale                     # before positions; the head stays unscaled
        pe = None
        if cfg.pos == "learned":
            pe = self.wpe(torch.arange(T) if positions is None else positions.long())
        elif cfg.pos == "sinusoidal":
            pe = sinusoidal_table(T, cfg.C, x.dtype, positions)
        if pe is not None:
            if cfg.pos_scale_kind == "fixed":
                pe = pe * cfg.pos_scale_value
            elif cfg.pos_scale_kind == "learned":     # x-transformers' ScaledSinusoidalEmbedding
                pe = pe * self.wpe.scale
            x = x + pe
        rel_table = self.rel_bias.weight if cfg.pos == "t5" else None
        bias = None                                 # fire, kerple: one bias for every layer
        if cfg.pos == "fire":
            bias = self.fire(T, positions)
        elif cfg.pos in ("kerple", "kerple-power"):
            bias = self.kerple(T, positions)
        elif cfg.pos == "dpb":
            bias = self.dpb(T, positions, pos_range)
        for block in self.h:
            x = block(x, rel_table, bias, positions, pos_range)
        x = self.ln_f(x)
        head = self.lm_head.weight if cfg.untied_head else self.wte.weight
        logits = x @ head.t()
        loss = cross_entropy(logits, targets) if targets is not None else None
        return logits, loss


# --------------------------------------------------------------------------------------------
# Checkpoints
# --------------------------------------------------------------------------------------------

def extend_table(table, T, how, fresh_rows=None):
    """A learned table [T0, C] grown to [T, C] as ordo's --extend-pos grows it (train --init RUN
    --context T, eval --extend-pos): "interpolate", F.interpolate(mode="linear",
    align_corners=True) over the positions in float64 (both ends kept); "copy", row t = row
    t mod T0 (Beltagy et al. 2020, Longformer's init: RoBERTa's 512 rows copied repeatedly to
    fill 4096); "fresh", the T0 rows then rows T0.. of fresh_rows [T, C] (ordo draws them from
    the run's seed). T <= T0: the first T rows, any way."""
    T0 = table.shape[0]
    if T <= T0:
        return table[:T].clone()
    if how == "copy":
        return table[torch.arange(T) % T0].clone()
    if how == "interpolate":
        return F.interpolate(table.double().t()[None], size=T, mode="linear", align_corners=True)[0].t().to(table.dtype)
    if how == "fresh":
        return torch.cat([table, fresh_rows[T0:T].to(table.dtype)])
    raise ValueError("unknown extend method %r (interpolate, fresh or copy)" % how)


def _canonical_name(name):
    """Map HF / ordo names to ours; None for entries that are not model parameters
    (optimizer moments, HF attention-mask buffers, fixture extras). lm_head.weight is kept:
    load_state uses it for an untied head and skips it for a tied one (HF files that hold a
    copy of wte)."""
    if name.startswith("transformer."):
        name = name[len("transformer."):]
    if name.startswith(("optim.", "batch.", "out.", "grad.")):
        return None
    if name.endswith(".attn.bias") or name.endswith(".attn.masked_bias"):  # HF mask buffers
        return None
    return name


def _meta_lookup(meta, keys):
    """Find the first of `keys` in flat metadata or in a JSON object stored under a meta key."""
    import json
    for k in keys:
        if k in meta:
            return meta[k]
    for v in meta.values():
        if isinstance(v, str) and v.startswith("{"):
            try:
                obj = json.loads(v)
            except ValueError:
                continue
            for k in keys:
                if k in obj:
                    return str(obj[k])
    return None


def config_from_checkpoint(tensors, meta, pos=None, NH=None, T_max=None, embed_scale=None):
    """Infer a GPTConfig from tensor shapes and metadata; explicit arguments win."""
    names = {_canonical_name(n): n for n in tensors if _canonical_name(n)}
    if "wte.weight" not in names:
        raise ValueError("checkpoint has no wte.weight")
    V, C = tensors[names["wte.weight"]].shape
    L = 1 + max([int(n.split(".")[1]) for n in names if n.startswith("h.")] or [-1])
    if pos is None:
        pos = _meta_lookup(meta, ("pos", "position", "pos_scheme"))
    if pos is None:
        if "wpe.weight" in names:
            pos = "learned"
        elif "rel_bias.weight" in names:
            pos = "t5"
        elif "fire.c" in names:
            pos = "fire"
        else:
            raise ValueError("cannot tell the position scheme from the checkpoint; pass --pos")
    if NH is None:
        if "rel_bias.weight" in names:
            NH = tensors[names["rel_bias.weight"]].shape[1]
        else:
            NH = _meta_lookup(meta, ("NH", "n_head", "nh", "n_heads", "num_heads"))
    if NH is None:
        raise ValueError("cannot tell the number of heads from the checkpoint; pass --nh")
    if T_max is None:
        if "wpe.weight" in names:
            T_max = tensors[names["wpe.weight"]].shape[0]
        else:
            T_max = _meta_lookup(meta, ("T_max", "n_positions", "block_size", "context_length", "n_ctx"))
    if T_max is None:
        T_max = 0  # only the learned scheme needs it
    if embed_scale is None:  # ordo writes it (flat) only when it is not 1
        embed_scale = meta.get("embed_scale", 1.0)
    untied = meta.get("untied_head") == "1"  # ordo writes it (flat) only for an untied head
    return GPTConfig(V, C, L, int(NH), int(T_max), pos, float(embed_scale), untied,
                     meta.get("rope_scaling", "none"), float(meta.get("rope_factor", 1.0)),
                     int(meta.get("rope_orig_context", 0)), **subset_options(meta))


def load_state(model, tensors, strict=True):
    """Copy name -> tensor (ordo / HF GPT-2 names) into model; checks names and shapes."""
    own = dict(model.named_parameters())
    seen = set()
    with torch.no_grad():
        for name, t in tensors.items():
            cname = _canonical_name(name)
            if cname is None or (cname == "lm_head.weight" and not model.cfg.untied_head):
                continue
            if cname not in own:
                if strict:
                    raise ValueError("unexpected tensor %r for %r" % (name, model.cfg))
                continue
            t = torch.as_tensor(t)
            if tuple(t.shape) != tuple(own[cname].shape):
                raise ValueError("tensor %r has shape %s, model expects %s" % (
                    name, tuple(t.shape), tuple(own[cname].shape)))
            own[cname].copy_(t.to(own[cname].dtype))
            seen.add(cname)
    missing = sorted(set(own) - seen)
    if missing:
        raise ValueError("checkpoint lacks %s" % ", ".join(missing))
    return model


def load_safetensors_model(path, dtype=torch.float64, pos=None, NH=None, T_max=None, embed_scale=None):
    """Build a GPT from an ordo/HF-named safetensors file; returns (model, metadata)."""
    tensors, meta = safetensors_py.load(path, with_metadata=True)
    cfg = config_from_checkpoint(tensors, meta, pos, NH, T_max, embed_scale)
    model = GPT(cfg).to(dtype)
    load_state(model, {k: torch.from_numpy(v) for k, v in tensors.items()})
    return model, meta


def state_tensors(model):
    """name -> float32 tensor of every parameter, in our naming."""
    return {n: p.detach().float().contiguous() for n, p in model.named_parameters()}


# --------------------------------------------------------------------------------------------
# Self-test
# --------------------------------------------------------------------------------------------

def _check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        _check.failed += 1


_check.failed = 0


def selftest():
    torch.manual_seed(0)
    # (a) rope: q_m . k_n depends only on m - n
    hs, T = 8, 12
    q, k = torch.randn(hs, dtype=torch.float64), torch.randn(hs, dtype=torch.float64)
    cos, sin = rope_cos_sin(T, hs, torch.float64)
    Q = apply_rope(q.expand(T, hs), cos, sin)
    K = apply_rope(k.expand(T, hs), cos, sin)
    D = Q @ K.t()
    toeplitz = all(torch.allclose(D.diagonal(o), D.diagonal(o)[0].expand_as(D.diagonal(o)), rtol=0, atol=1e-12)
                   for o in range(-T + 1, T))
    _check(toeplitz, "rope: q_m.k_n depends only on m-n (T=12, hs=8)")
    _check(not torch.allclose(D.diagonal(0)[0], D.diagonal(1)[0]), "rope: ... and does depend on m-n")
    x = torch.arange(1.0, 9.0, dtype=torch.float64)
    r = apply_rope(x.expand(2, 8), cos[:2], sin[:2])[1]
    a = 1.0 * 10000 ** (-2 * 1 / 8)   # pair (1, 5) at position 1
    _check(abs(r[1] - (2 * math.cos(a) - 6 * math.sin(a))) < 1e-12 and
           abs(r[5] - (6 * math.cos(a) + 2 * math.sin(a))) < 1e-12, "rope: rotate-half pairing (i, i+d/2)")
    _check(torch.allclose(r.norm(), x.norm()), "rope: rotation preserves the norm")
    qkv = torch.randn(2, 5, 3 * 16, dtype=torch.float64)
    _check(torch.equal(rope_qkv(qkv, 2)[..., 32:], qkv[..., 32:]), "rope: v untouched")

    # (b) alibi slopes
    def neglog2(H):
        return [-math.log2(m) for m in alibi_slopes(H)]
    _check(neglog2(6) == [2, 4, 6, 8, 1, 3], "alibi: H=6 -> %s" % neglog2(6))
    _check(max(abs(a - b) for a, b in zip(neglog2(12), [1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5])) < 1e-12,
           "alibi: H=12 -> %s" % ["%g" % v for v in neglog2(12)])
    _check(neglog2(8) == [1, 2, 3, 4, 5, 6, 7, 8] and neglog2(1) == [8] and neglog2(4) == [2, 4, 6, 8],
           "alibi: H=1,4,8 powers of two")
    _check(neglog2(3) == [4, 8, 2], "alibi: H=3 -> %s" % neglog2(3))
    b = alibi_bias(3, 4, torch.float64)
    _check(b[0, 3, 1] == -2 * 2 ** -4 and b[2, 2, 2] == 0, "alibi: bias[h,i,j] = -m_h (i-j)")

    # (c) sinusoidal
    want = [0.841471, 0.540302, 0.099833, 0.995004, 0.010000, 0.999950, 0.001000, 1.000000]
    got = sinusoidal_table(2, 8, torch.float64)[1].tolist()
    _check(max(abs(g - w) for g, w in zip(got, want)) < 5e-7, "sinusoidal: C=8 p=1 %s" %
           ["%.6f" % g for g in got])
    _check(sinusoidal_table(3, 8)[0].tolist() == [0, 1, 0, 1, 0, 1, 0, 1], "sinusoidal: p=0 row is [0,1,0,1,...]")

    # t5 buckets: float32 (HF) and float64 agree; the known values
    n = torch.arange(-5, 100001)
    b32 = t5_bucket(n)
    b64 = torch.tensor([t5_bucket_py(v) for v in n.tolist()])
    _check(torch.equal(b32, b64), "t5: float32 (HF) and float64 buckets agree for n in -5..100000")
    _check(t5_bucket(torch.arange(16)).tolist() == list(range(16)) and
           t5_bucket(torch.tensor([-3, 16, 18, 19, 22, 112, 113, 128, 1000])).tolist() ==
           [0, 16, 16, 17, 18, 30, 31, 31, 31],
           "t5: exact below 16, log-spaced (19 -> 17, 113 -> 31), capped at 31")

    # xpos: q_n . k_m depends only on n - m and decays with it (zeta < 1), whatever the centring
    hs, T = 8, 12
    q, k = torch.randn(hs, dtype=torch.float64), torch.randn(hs, dtype=torch.float64)
    cos, sin = rope_cos_sin(T, hs, torch.float64)
    for TT in (12, 13):
        sc = xpos_scale(TT, hs, torch.float64)[:T]
        D = apply_xpos(q.expand(T, hs), cos, sin, sc, False) @ apply_xpos(k.expand(T, hs), cos, sin, sc, True).t()
        D0 = apply_rope(q.expand(T, hs), cos, sin) @ apply_rope(k.expand(T, hs), cos, sin).t()
        toeplitz = all(torch.allclose(D.diagonal(o), D.diagonal(o)[0].expand_as(D.diagonal(o)), rtol=0, atol=1e-12)
                       for o in range(-T + 1, T))
        _check(toeplitz, "xpos: q_n.k_m depends only on n-m (length %d)" % TT)
    zeta = (torch.arange(0, hs, 2, dtype=torch.float64) + 0.4 * hs) / (1.4 * hs)
    _check(abs(zeta[0] - 0.4 / 1.4) < 1e-15 and xpos_scale(5, hs, torch.float64)[0, 0] == zeta[0] ** (-3 / 512.0),
           "xpos: zeta_0 = 0.4/1.4, T=5 centres positions at -3..1 (torchscale)")
    _check(not torch.allclose(D, D0), "xpos: differs from rope")

    # fire: normaliser max(i, L); kerple: clamp and values
    fire = FIRE(3).double()
    with torch.no_grad():
        fire.L_multiplier.fill_(4.0 / 512)            # L = 4
    c = fire.c.item()                                  # 0.1 as float32
    want = math.log(c * 3 + 1) / (math.log(c * 6 + 1) + FIRE_EPS)   # i = 6 > L, d = 3
    fire.fc2 = nn.Identity()
    fire.fc1 = nn.Identity()
    b = fire(8)                                        # relu(u): [1, 8, 8]
    _check(abs(b[0, 6, 3].item() - want) < 1e-12 and
           abs(b[0, 2, 0].item() - math.log(c * 2 + 1) / (math.log(c * 4 + 1) + FIRE_EPS)) < 1e-12,
           "fire: u = log(c d + 1) / (log(c max(i, L) + 1) + eps), i from 0")
    kp = Kerple(2, False).double()
    with torch.no_grad():
        kp.r1.copy_(torch.tensor([0.5, -1.0]))
        kp.r2.copy_(torch.tensor([0.001, 2.0]))
    b = kp(4)
    _check(kp.r1[1].item() == KERPLE_EPS and kp.r2[0].item() == KERPLE_EPS and
           abs(b[0, 3, 1].item() + 0.5 * math.log(1 + 0.01 * 2)) < 1e-12 and b[1, 1, 2].item() == 0,
           "kerple: clamped to >= 0.01 in place; -r1 log(1 + r2 (i-j)); 0 above the diagonal")
    kq = Kerple(1, True).double()
    with torch.no_grad():
        kq.r1.fill_(0.5)
        kq.r2.fill_(3.0)
    b = kq(4)
    _check(kq.r2.item() == 2.0 and abs(b[0, 3, 0].item() + 0.5 * 9.0) < 1e-12,
           "kerple-power: exponent clamped to <= 2; -r1 (i-j)^r2")

    # cross-entropy convention
    lg, tg = torch.randn(6, 5, dtype=torch.float64), torch.tensor([1, -1, 4, 0, -1, 2])
    _check(torch.allclose(cross_entropy(lg, tg), F.cross_entropy(lg, tg, ignore_index=-1)),
           "cross_entropy: targets < 0 ignored, mean over the rest (== F.cross_entropy ignore_index=-1)")

    # learned: error past T_max
    m = GPT(GPTConfig(11, 8, 1, 2, 4, "learned"))
    try:
        m(torch.zeros(1, 5, dtype=torch.long))
        _check(False, "learned: T > T_max raises")
    except ValueError as e:
        _check("T_max=4" in str(e), "learned: T > T_max raises: %s" % e)

    # (d) gradcheck of the double model, every scheme, logits and loss w.r.t. every parameter
    from torch.nn.utils.stateless import functional_call
    for pos in POS_SCHEMES:
        torch.manual_seed(1)
        cfg = GPTConfig(V=7, C=8, L=2, NH=2, T_max=5, pos=pos)
        model = GPT(cfg).double()
        with torch.no_grad():
            for nm, p in model.named_parameters():
                p.normal_(0.0, 0.4)
                if nm.startswith("kerple."):    # inside the clamp's range: differentiable there
                    p.abs_().add_(0.1).clamp_(max=1.9)
        names = [nm for nm, _ in model.named_parameters()]
        params = tuple(p.detach().clone().requires_grad_(True) for p in model.parameters())
        T = 5 if pos == "learned" else 6   # relative schemes: run past T_max too
        idx = torch.tensor([[1, 3, 3, 0, 6, 2][:T], [5, 5, 4, 1, 0, 3][:T]])
        tgt = torch.tensor([[3, 3, 0, 6, 2, -1][:T], [5, 4, 1, 0, 3, 1][:T]])

        def f(*ps):
            logits, loss = functional_call(model, dict(zip(names, ps)), (idx, tgt))
            return logits, loss
        ok = torch.autograd.gradcheck(f, params, eps=1e-6, atol=1e-5, rtol=1e-4, raise_exception=False)
        _check(ok, "gradcheck: pos=%s (%d params, %d tensors)" % (pos, sum(p.numel() for p in params), len(params)))
        model.cfg.embed_scale = 2.5   # scaled token embeddings, unscaled tied head
        ok = torch.autograd.gradcheck(f, params, eps=1e-6, atol=1e-5, rtol=1e-4, raise_exception=False)
        model.cfg.embed_scale = 1.0
        _check(ok, "gradcheck: pos=%s, embed_scale 2.5" % pos)

    # embed_scale multiplies the token embeddings only: the tied head reads wte unscaled
    cfg = GPTConfig(V=7, C=8, L=1, NH=2, T_max=5, pos="sinusoidal", embed_scale=3.0)
    m = GPT(cfg).double()
    idx = torch.tensor([[1, 3, 3, 0]])
    x = m.wte(idx) * 3.0 + sinusoidal_table(4, 8, torch.float64)
    for block in m.h:
        x = block(x)
    want = m.ln_f(x) @ m.wte.weight.t()
    _check(torch.allclose(m(idx)[0], want, rtol=0, atol=1e-12), "embed_scale: tokens scaled, head unscaled")

    # rope scaling: still a rotation (times mscale) whose scores depend on m - n only; pi at s*p
    # is none at p; ntk keeps the highest frequency and divides the lowest by s; yarn keeps
    # the fastest pairs, interpolates the slowest, and is the identity at s = 1
    hs = 16
    none_inv, _ = rope_inv_freq(hs)
    for sc in ROPE_SCALINGS:
        inv, ms = rope_inv_freq(hs, sc, 4.0, 64)
        cos, sin = (ms * torch.cos(rope_angles(40, hs, inv)), ms * torch.sin(rope_angles(40, hs, inv)))
        q, k = torch.randn(hs, dtype=torch.float64), torch.randn(hs, dtype=torch.float64)
        d1 = apply_rope(q, cos[7], sin[7]) @ apply_rope(k, cos[3], sin[3])
        d2 = apply_rope(q, cos[30], sin[30]) @ apply_rope(k, cos[26], sin[26])
        _check(abs(d1 - d2) < 1e-9, "rope %s: q_m.k_n depends on m-n only" % sc)
    inv, _ = rope_inv_freq(hs, "pi", 4.0)
    _check(torch.allclose(rope_angles(40, hs, inv)[36], rope_angles(10, hs)[9]), "pi: position 4p is p")
    inv, _ = rope_inv_freq(hs, "ntk", 4.0)
    _check(inv[0] == 1.0 and abs(inv[-1] / none_inv[-1] - 0.25) < 1e-12, "ntk: lowest frequency / s")
    inv, ms = rope_inv_freq(hs, "yarn", 4.0, 64)
    _check(inv[0] == none_inv[0] and abs(inv[-1] / none_inv[-1] - 0.25) < 1e-12 and ms == 0.1 * math.log(4) + 1,
           "yarn: fast pairs kept, slow ones / s, mscale 0.1 ln s + 1")
    inv, ms = rope_inv_freq(hs, "yarn", 1.0, 64)
    _check(torch.allclose(inv, none_inv, rtol=1e-15, atol=0) and ms == 1.0, "yarn at s = 1 is rope")

    # float32 model vs float64 model
    torch.manual_seed(2)
    for pos in POS_SCHEMES:
        cfg = GPTConfig(V=64, C=32, L=2, NH=4, T_max=16, pos=pos)
        m32 = GPT(cfg)
        with torch.no_grad():
            for p in m32.parameters():
                p.normal_(0.0, 0.2)
            if pos.startswith("kerple"):   # the float32 and float64 clamps must leave the same numbers
                m32.kerple.r1.abs_().add_(0.1)
                m32.kerple.r2.abs_().add_(0.1)
        m64 = GPT(cfg).double()
        load_state(m64, state_tensors(m32))
        idx = torch.randint(0, 64, (2, 16))
        l32, _ = m32(idx)
        l64, _ = m64(idx)
        _check(torch.allclose(l32.double(), l64, rtol=1e-4, atol=1e-5), "float32 vs float64 logits agree: pos=%s" % pos)

    # the fixtures on disk (if made) are reproduced by this code
    fx = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    if os.path.isdir(fx):
        for fn in sorted(os.listdir(fx)):
            if not (fn.startswith("gpt_") and fn.endswith(".safetensors")):
                continue
            d, meta = safetensors_py.load(os.path.join(fx, fn), with_metadata=True)
            wfile = os.path.join(fx, meta.get("weights", fn))
            w = safetensors_py.load(wfile)
            cfg = GPTConfig.from_metadata(meta)
            model = GPT(cfg).double()
            load_state(model, {k: torch.from_numpy(v) for k, v in w.items()})
            idx = torch.from_numpy(d["batch.idx"]).long()
            tgt = torch.from_numpy(d["batch.targets"]).long()
            # --pos-random's fixtures give the positions they were made at
            pos = torch.from_numpy(d["batch.pos"]).long() if "batch.pos" in d else None
            logits, loss = model(idx, tgt, pos) if pos is not None else model(idx, tgt)
            loss.backward()
            ok = torch.allclose(logits.float(), torch.from_numpy(d["out.logits"]), rtol=1e-5, atol=1e-6)
            ok = ok and abs(loss.item() - float(d["out.loss"][0])) <= 1e-5 * abs(loss.item())
            for nm, p in model.named_parameters():
                if "grad." + nm in d:
                    ok = ok and torch.allclose(p.grad.float(), torch.from_numpy(d["grad." + nm]), rtol=1e-4, atol=1e-7)
            _check(ok, "fixture %s reproduced (logits, loss, grads)" % fn)

    print("selftest: %s" % ("PASS" if _check.failed == 0 else "%d FAILED" % _check.failed))
    return 0 if _check.failed == 0 else 1


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------

def _parse_rows(s):
    rows = [r.replace(",", " ").split() for r in s.replace("\n", ";").split(";") if r.strip()]
    if not rows or len({len(r) for r in rows}) != 1:
        raise ValueError("ids must be rows of equal length separated by ';', e.g. \"1 2 3; 4 5 6\"")
    return torch.tensor([[int(v) for v in r] for r in rows], dtype=torch.long)


def check_checkpoint(args):
    dtype = torch.float32 if args.float32 else torch.float64
    model, meta = load_safetensors_model(args.check_checkpoint, dtype, args.pos, args.nh, args.tmax,
                                         args.embed_scale)
    ref = safetensors_py.load(args.compare) if args.compare else {}
    if args.idx:
        idx = _parse_rows(args.idx)
    elif "batch.idx" in ref:
        idx = torch.from_numpy(ref["batch.idx"]).long()
    else:
        raise ValueError("--idx is required (or a --compare file holding batch.idx)")
    tgt = None
    if args.targets:
        tgt = _parse_rows(args.targets)
    elif "batch.targets" in ref and not args.idx:
        tgt = torch.from_numpy(ref["batch.targets"]).long()
    if idx.min() < 0 or idx.max() >= model.cfg.V:
        raise ValueError("token ids must be in 0..%d" % (model.cfg.V - 1))
    with torch.no_grad():
        logits, loss = model(idx, tgt)
    print("checkpoint: %s" % args.check_checkpoint)
    print("config:     %r" % model.cfg)
    print("idx:        %s" % list(idx.shape))
    print("logits:     shape %s mean %.6g std %.6g min %.6g max %.6g" % (
        list(logits.shape), logits.mean().item(), logits.std().item(), logits.min().item(), logits.max().item()))
    print("logits[0,0,:8]: %s" % " ".join("%.6g" % v for v in logits[0, 0, :8].tolist()))
    print("argmax[0]:  %s" % " ".join(str(v) for v in logits[0].argmax(-1).tolist()))
    if loss is not None:
        print("loss:       %.8g" % loss.item())
    if args.dump:
        out = {"batch.idx": idx.float(), "out.logits": logits.float()}
        if tgt is not None:
            out["batch.targets"] = tgt.float()
            out["out.loss"] = loss.float().reshape(1)
        md = model.cfg.as_metadata()
        md.update({"T": str(idx.shape[1]), "B": str(idx.shape[0]), "generator": "tests/ref/gpt_ref.py"})
        safetensors_py.save(out, args.dump, md)
        print("wrote %s" % args.dump)
    if args.compare:
        key = "out.logits" if "out.logits" in ref else "logits"
        if key not in ref:
            raise ValueError("%s holds no out.logits / logits" % args.compare)
        other = torch.from_numpy(ref[key]).to(logits.dtype)
        if tuple(other.shape) != tuple(logits.shape):
            raise ValueError("logits shape %s vs %s in %s" % (list(logits.shape), list(other.shape), args.compare))
        diff = (logits - other).abs()
        rel = (diff / (other.abs() + args.atol / args.rtol)).max().item()
        bad = not torch.allclose(logits, other, rtol=args.rtol, atol=args.atol)
        print("compare:    max abs diff %.3g, max rel diff %.3g (rtol %g, atol %g): %s" % (
            diff.max().item(), rel, args.rtol, args.atol, "MISMATCH" if bad else "match"))
        if loss is not None and ("out.loss" in ref or "loss" in ref):
            rl = float(ref["out.loss" if "out.loss" in ref else "loss"].reshape(-1)[0])
            lbad = abs(loss.item() - rl) > args.rtol * abs(rl) + args.atol
            print("loss:       ours %.8g theirs %.8g: %s" % (loss.item(), rl, "MISMATCH" if lbad else "match"))
            bad = bad or lbad
        return 1 if bad else 0
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description="PyTorch reference GPT for ordo (see tests/ref/README.md)")
    ap.add_argument("--selftest", action="store_true", help="run the self-checks")
    ap.add_argument("--check-checkpoint", metavar="FILE", help="load an ordo/HF-named safetensors and run it")
    ap.add_argument("--idx", help='token ids, rows separated by ";", e.g. "1 2 3; 4 5 6"')
    ap.add_argument("--targets", help="target ids (same layout); prints the loss; < 0 = ignored")
    ap.add_argument("--pos", choices=POS_SCHEMES, help="position scheme if the checkpoint does not say")
    ap.add_argument("--nh", type=int, help="number of heads if the checkpoint does not say")
    ap.add_argument("--tmax", type=int, help="T_max if the checkpoint does not say")
    ap.add_argument("--embed-scale", type=float, help="token-embedding scale if the checkpoint does not say (1)")
    ap.add_argument("--compare", metavar="FILE", help="safetensors with out.logits (and out.loss) to compare with")
    ap.add_argument("--dump", metavar="FILE", help="write batch.idx / out.logits (/ out.loss) to FILE")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--float32", action="store_true", help="compute in float32 (default: float64)")
    args = ap.parse_args(argv)
    if args.selftest:
        return selftest()
    if args.check_checkpoint:
        try:
            return check_checkpoint(args)
        except (ValueError, OSError, KeyError) as e:
            print("gpt_ref: %s" % e, file=sys.stderr)
            return 2
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
