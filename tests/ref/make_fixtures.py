#!/usr/bin/python3
"""Write the golden fixtures in tests/ref/fixtures/ (see tests/ref/README.md for the layout).

    /usr/bin/python3 tests/ref/make_fixtures.py

Deterministic: every file draws from its own torch.Generator with a fixed seed, so the
output is byte-identical from run to run (on the same torch version). Inputs and weights are
drawn in float32 (that is what is stored and what the C side reads); the model forward and
backward and the ops are then evaluated in float64 from those float32 values and the results
stored as float32. The optimizer fixtures are float32 throughout.
"""

import importlib
import math
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpt_ref  # noqa: E402
import safetensors_py  # noqa: E402

OUT = os.path.join(HERE, "fixtures")
GENERATOR = "tests/ref/make_fixtures.py"

# weight scales: larger than GPT-2's 0.02 so that every path moves the logits
STD = {
    "wte.weight": 0.3,
    "wpe.weight": 0.3,
    "attn.c_attn.weight": 0.2,
    "attn.c_proj.weight": 0.15,
    "mlp.c_fc.weight": 0.2,
    "mlp.c_proj.weight": 0.1,
    "rel_bias.weight": 0.5,
    "lm_head.weight": 0.3,  # untied head (make_fixtures_model.py): as wte
    "attn.fgate.weight": 0.3,  # fox's gate (make_fixtures_fox.py redraws it)
    "attn.cope.pos_emb": 0.5,  # cope's embeddings (make_fixtures_cope.py redraws them)
}


# FIRE's parameters: offset and scale of the normal draw (the biases take the 0.05 N of every bias)
FIRE_DRAW = {"fire.fc1.weight": (0.0, 1.0), "fire.fc2.weight": (0.0, 0.3),
             "fire.c": (0.3, 0.05), "fire.L_multiplier": (1.0, 0.1)}


def f32(t):
    return t.detach().to(torch.float32).contiguous()


def draw_weights(model, g):
    """LN weights 1 + 0.1 N, every bias 0.05 N, matrices/tables N(0, STD); FIRE's weights
    N(0, 1) and N(0, 0.3), c 0.3 + 0.05 N, L multiplier 1 + 0.1 N; Kerple's r1, r2 0.2 + 0.6 |N|;
    dpb's weights N(0, 1/fan_in)."""
    w = {}
    for name, p in model.named_parameters():
        shape = tuple(p.shape)
        n = torch.randn(shape, generator=g, dtype=torch.float32)
        if name in FIRE_DRAW:
            a, b = FIRE_DRAW[name]
            w[name] = a + b * n
        elif name.startswith("kerple."):
            w[name] = 0.2 + 0.6 * n.abs()
        elif name.startswith("dpb.") and name.endswith(".weight"):  # N(0, 1/fan_in), as its init's scale
            w[name] = n / math.sqrt(shape[0])
        elif name == "wpe.scale":  # the learned scale on the positions (--pos-scale)
            w[name] = 0.5 + 0.1 * n
        elif name == "ln_f.weight" or name.endswith(("ln_1.weight", "ln_2.weight")):
            w[name] = 1.0 + 0.1 * n
        elif name.endswith(".bias"):
            w[name] = 0.05 * n
        else:
            key = name if name in STD else ".".join(name.split(".")[2:])
            w[name] = STD[key] * n
    return w


def run_model(cfg, weights, idx, targets, grads=True, positions=None):
    model = gpt_ref.GPT(cfg).double()
    gpt_ref.load_state(model, weights)
    logits, loss = model(idx, targets, positions)
    out = {"out.logits": f32(logits), "out.loss": f32(loss).reshape(1)}
    if grads:
        loss.backward()
        for name, p in model.named_parameters():
            out["grad." + name] = f32(p.grad)
    return out


def meta_for(cfg, T, B, **extra):
    m = cfg.as_metadata()
    m.update({"T": str(T), "B": str(B), "generator": GENERATOR})
    m.update({k: str(v) for k, v in extra.items()})
    return m


def gpt_fixtures():
    main = [  # name, V, C, L, NH, T_max, pos, T, B, seed
        ("none", 64, 32, 2, 4, 16, "none", 16, 3, 101),
        ("learned", 64, 32, 2, 4, 16, "learned", 16, 3, 102),
        ("sinusoidal", 64, 32, 2, 4, 16, "sinusoidal", 16, 3, 103),
        ("rope", 64, 32, 2, 4, 16, "rope", 16, 3, 104),
        ("alibi", 64, 32, 2, 4, 16, "alibi", 16, 3, 105),
        ("t5", 64, 32, 2, 4, 16, "t5", 16, 3, 106),
        ("alibi_nh3", 64, 24, 2, 3, 16, "alibi", 16, 3, 107),
    ]
    # scaled token embeddings (--embed-scale): x = s * wte[idx] + positions, head unscaled.
    # The scales are float32 values, so that ordo (float32) and this file use the same number.
    sqrt_c = float(torch.tensor(math.sqrt(32.0), dtype=torch.float32))  # vaswani at C = 32
    scaled = [  # name, V, C, L, NH, T_max, pos, T, B, seed, embed_scale
        ("sinusoidal_scaled", 64, 32, 2, 4, 16, "sinusoidal", 16, 3, 108, sqrt_c),
        ("learned_scaled", 64, 32, 2, 4, 16, "learned", 16, 3, 109, 2.5),
        ("rope_scaled", 64, 32, 2, 4, 16, "rope", 16, 3, 110, sqrt_c),
    ]
    # the schemes fire, kerple, xpos, kerple-power. Overrides after the draw put some rows on
    # each side of FIRE's max(i, L) (L = 0.5 * 16 = 8 < T = 16), a negative c (|c| is used),
    # and Kerple values below the clamp (0.01) and above the power variant's bound (2).
    wave2 = [  # name, V, C, L, NH, T_max, pos, T, B, seed, overrides
        ("fire", 64, 32, 2, 4, 16, "fire", 16, 3, 111, {}),
        ("fire_shortL", 64, 32, 2, 4, 16, "fire", 16, 3, 112,
         {"fire.L_multiplier": [8.25 / 512], "fire.c": [-0.35]}),
        ("kerple", 64, 32, 2, 4, 16, "kerple", 16, 3, 113, {"kerple.r2": {0: 0.004}, "kerple.r1": {2: -0.3}}),
        ("xpos", 64, 32, 2, 4, 16, "xpos", 16, 3, 114, {}),
        ("kerple-power", 64, 32, 2, 4, 16, "kerple-power", 16, 3, 115, {"kerple.r2": {1: 2.5, 3: 0.003}}),
    ]
    weights_of = {}
    cases = [m + (1.0, {}) for m in main] + [m + ({},) for m in scaled] + \
        [m[:10] + (1.0, m[10]) for m in wave2]
    for name, V, C, L, NH, T_max, pos, T, B, seed, scale, over in cases:
        g = torch.Generator().manual_seed(seed)
        cfg = gpt_ref.GPTConfig(V, C, L, NH, T_max, pos, scale)
        w = draw_weights(gpt_ref.GPT(cfg), g)
        for k, v in over.items():
            if isinstance(v, dict):
                for i, x in v.items():
                    w[k][i] = x
            else:
                w[k] = torch.tensor(v, dtype=torch.float32)
        idx = torch.randint(0, V, (B, T), generator=g)
        tgt = torch.randint(0, V, (B, T), generator=g)
        out = run_model(cfg, w, idx, tgt)
        tensors = dict(w)
        tensors.update({"batch.idx": idx.float(), "batch.targets": tgt.float()})
        tensors.update(out)
        fn = "gpt_%s.safetensors" % name
        safetensors_py.save(tensors, os.path.join(OUT, fn), meta_for(cfg, T, B))
        weights_of[name] = (cfg, w, fn)
        report(fn, out)

    # variants: the weights of a main file, another batch shape; logits + loss (+ grads)
    variants = [  # name, base, T, B, seed, grads
        ("none_T24", "none", 24, 2, 201, False),
        ("sinusoidal_T24", "sinusoidal", 24, 2, 202, False),
        ("rope_T24", "rope", 24, 2, 203, False),
        ("alibi_T24", "alibi", 24, 2, 204, False),
        ("t5_T24", "t5", 24, 2, 205, False),
        ("learned_T11", "learned", 11, 3, 206, True),
        # past the training length, with gradients (the learned biases train there too)
        ("fire_T24", "fire", 24, 2, 207, True),
        ("fire_shortL_T40", "fire_shortL", 40, 1, 208, True),
        ("kerple_T24", "kerple", 24, 2, 209, True),
        ("xpos_T24", "xpos", 24, 2, 210, False),
        ("xpos_T23", "xpos", 23, 2, 211, False),   # odd: torchscale's centring rounds down
        ("kerple-power_T24", "kerple-power", 24, 2, 212, True),
    ]
    for name, base, T, B, seed, grads in variants:
        cfg, w, wfn = weights_of[base]
        g = torch.Generator().manual_seed(seed)
        idx = torch.randint(0, cfg.V, (B, T), generator=g)
        tgt = torch.randint(0, cfg.V, (B, T), generator=g)
        out = run_model(cfg, w, idx, tgt, grads)
        tensors = {"batch.idx": idx.float(), "batch.targets": tgt.float()}
        tensors.update(out)
        fn = "gpt_%s.safetensors" % name
        safetensors_py.save(tensors, os.path.join(OUT, fn), meta_for(cfg, T, B, weights=wfn))
        report(fn, out)

    # rope scaling: gpt_rope's weights (trained length T_max = 16) at longer T with
    # each scaling, with grads (training with a scaling). rope_yarn_orig sets YaRN's original
    # length to 256, where the ramp has a middle value (0, 0.5, 1, 1 over the 4 pairs of hs 8).
    scalings = [  # name, scaling, factor, orig (0 = T_max), T, B, seed
        ("rope_pi_T32", "pi", 2.0, 0, 32, 2, 301),
        ("rope_ntk_T32", "ntk", 2.0, 0, 32, 2, 302),
        ("rope_yarn_T64", "yarn", 4.0, 0, 64, 2, 303),
        ("rope_yarn_orig", "yarn", 2.5, 256, 24, 2, 304),
    ]
    for name, scaling, factor, orig, T, B, seed in scalings:
        base, w, wfn = weights_of["rope"]
        cfg = gpt_ref.GPTConfig(base.V, base.C, base.L, base.NH, base.T_max, "rope", 1.0,
                                rope_scaling=scaling, rope_factor=factor, rope_orig=orig)
        g = torch.Generator().manual_seed(seed)
        idx = torch.randint(0, cfg.V, (B, T), generator=g)
        tgt = torch.randint(0, cfg.V, (B, T), generator=g)
        out = run_model(cfg, w, idx, tgt, True)
        tensors = {"batch.idx": idx.float(), "batch.targets": tgt.float()}
        tensors.update(out)
        fn = "gpt_%s.safetensors" % name
        safetensors_py.save(tensors, os.path.join(OUT, fn), meta_for(cfg, T, B, weights=wfn))
        report(fn, out)


def report(fn, out):
    lg = out["out.logits"]
    print("%-32s loss %.5f  logits std %.3f  range [%.2f, %.2f]" % (
        fn, out["out.loss"].item(), lg.std().item(), lg.min().item(), lg.max().item()))


# --------------------------------------------------------------------------------------------
# ops.safetensors
# --------------------------------------------------------------------------------------------

def grads_of(fn, inputs, dy):
    """Evaluate fn on float64 copies of inputs, backprop dy; return (y, [d input])."""
    xs = [x.double().requires_grad_(True) for x in inputs]
    y = fn(*xs)
    y.backward(dy.double())
    return f32(y), [f32(x.grad) for x in xs]


def ops_fixtures():
    g = torch.Generator().manual_seed(7)

    def randn(*shape, std=1.0):
        return std * torch.randn(shape, generator=g, dtype=torch.float32)

    t, meta = {}, {"generator": GENERATOR}

    # layernorm over the last dim, eps 1e-5; x with a large common offset
    x = randn(2, 5, 8, std=3.0) + 10.0
    w, b = 1.0 + 0.1 * randn(8), 0.1 * randn(8)
    dy = randn(2, 5, 8)
    y, (dx, dw, db) = grads_of(lambda x, w, b: F.layer_norm(x, (8,), w, b, gpt_ref.LN_EPS), [x, w, b], dy)
    t.update({"layernorm.x": x, "layernorm.weight": w, "layernorm.bias": b, "layernorm.y": y,
              "layernorm.dy": dy, "layernorm.dx": dx, "layernorm.dweight": dw, "layernorm.dbias": db})
    meta["layernorm.eps"] = "1e-5"

    # gelu, tanh form
    x = torch.cat([torch.linspace(-8, 8, 33), randn(31, std=3.0)])
    dy = randn(64)
    y, (dx,) = grads_of(gpt_ref.gelu, [x], dy)
    t.update({"gelu.x": x, "gelu.y": y, "gelu.dy": dy, "gelu.dx": dx})

    # softmax over the last dim, including huge and constant rows
    x = torch.stack([randn(10), randn(10, std=1e4), torch.full((10,), 1e4), -1e4 * torch.arange(10.0),
                     torch.tensor([-1e4, 1e4] + [0.0] * 8)])
    dy = randn(5, 10)
    y, (dx,) = grads_of(lambda x: torch.softmax(x, -1), [x], dy)
    t.update({"softmax.x": x, "softmax.y": y, "softmax.dy": dy, "softmax.dx": dx})

    # cross-entropy, mean over the targets >= 0; rows with huge logits
    lg = randn(6, 10, std=2.0)
    lg[1] = randn(10, std=1e4)
    lg[3] = torch.tensor([1e4, -1e4, 0, 0, 0, 0, 0, 0, 0, 1e4])
    lg[4] = torch.full((10,), -1e4)
    tgt = torch.tensor([3, 7, -1, 1, 9, -1])
    loss, (dlg,) = grads_of(lambda z: gpt_ref.cross_entropy(z, tgt), [lg], torch.tensor(1.0))
    t.update({"cross_entropy.logits": lg, "cross_entropy.targets": tgt.float(),
              "cross_entropy.loss": loss.reshape(1), "cross_entropy.dlogits": dlg})
    meta["cross_entropy.ignore"] = "targets < 0 are ignored; loss = mean over the others"

    # causal attention core on a fused qkv [B, T, 3C] -> y [B, T, C] (before c_proj)
    def attn_case(prefix, B, T, C, NH, pos, table=None):
        qkv = randn(B, T, 3 * C)
        dy = randn(B, T, C)
        if table is None:
            y, (dqkv,) = grads_of(lambda z: gpt_ref.attention_from_qkv(z, NH, pos), [qkv], dy)
        else:
            y, (dqkv, dtab) = grads_of(lambda z, tb: gpt_ref.attention_from_qkv(z, NH, pos, tb), [qkv, table], dy)
            t.update({prefix + ".table": table, prefix + ".dtable": dtab})
        t.update({prefix + ".qkv": qkv, prefix + ".y": y, prefix + ".dy": dy, prefix + ".dqkv": dqkv})
        meta[prefix + ".NH"] = str(NH)
        meta[prefix + ".pos"] = pos

    attn_case("attn", 2, 5, 8, 2, "none")
    attn_case("attn_rope", 2, 6, 16, 2, "rope")
    attn_case("attn_alibi", 1, 7, 24, 6, "alibi")
    attn_case("attn_t5", 2, 20, 8, 2, "t5", table=randn(32, 2, std=0.5))

    # rope alone on a fused qkv: q and k rotated per head, v copied
    NH, T, C = 2, 6, 16
    qkv, dy = randn(2, T, 3 * C), randn(2, T, 3 * C)
    y, (dqkv,) = grads_of(lambda z: gpt_ref.rope_qkv(z, NH), [qkv], dy)
    cos, sin = gpt_ref.rope_cos_sin(T, C // NH, torch.float64)
    t.update({"rope.qkv": qkv, "rope.y": y, "rope.dy": dy, "rope.dqkv": dqkv,
              "rope.cos": f32(cos), "rope.sin": f32(sin)})
    meta["rope.NH"] = str(NH)

    # sinusoidal tables
    t["sinusoidal.C8"] = gpt_ref.sinusoidal_table(16, 8, torch.float32)
    t["sinusoidal.C32"] = gpt_ref.sinusoidal_table(24, 32, torch.float32)

    # alibi slopes, H = 1..16
    for H in range(1, 17):
        t["alibi.slopes_H%d" % H] = torch.tensor(gpt_ref.alibi_slopes(H), dtype=torch.float32)

    # t5 buckets for distances n = i - j in -4..300
    n = torch.arange(-4, 301)
    t["t5.distance"] = n.float()
    t["t5.bucket"] = gpt_ref.t5_bucket(n).float()
    meta["t5.num_buckets"] = str(gpt_ref.T5_NUM_BUCKETS)
    meta["t5.max_distance"] = str(gpt_ref.T5_MAX_DISTANCE)

    t = {k: f32(v) for k, v in t.items()}
    safetensors_py.save(t, os.path.join(OUT, "ops.safetensors"), meta)
    print("ops.safetensors                  %d tensors" % len(t))


# --------------------------------------------------------------------------------------------
# optim.safetensors (float32 throughout)
# --------------------------------------------------------------------------------------------

def optim_fixtures():
    g = torch.Generator().manual_seed(11)

    def randn(*shape, std=1.0):
        return std * torch.randn(shape, generator=g, dtype=torch.float32)

    init = {"w": randn(4, 5, std=0.5), "b": randn(5, std=0.5)}
    steps = 3
    grads = []
    for k in range(steps):
        gw, gb = randn(4, 5, std=0.1 * (k + 1)), randn(5, std=0.3)
        if k == 0:
            gw[0, 0], gw[0, 1], gb[0] = 0.0, 1e-9, 5.0   # zero, eps-dominated and large entries
        if k == 1:
            gw[1, 2] = -2.0
        grads.append({"w": gw, "b": gb})
    t, meta = {}, {"generator": GENERATOR, "params": "w [4,5] (2-D, decayed in AdamW), b [5] (1-D, not decayed)",
                   "steps": str(steps)}

    def run(prefix, make_opt, state_names):
        params = {n: torch.nn.Parameter(v.clone()) for n, v in init.items()}
        opt = make_opt(params)
        for n in params:
            t["%s.%s.param.0" % (prefix, n)] = init[n].clone()
        for k in range(steps):
            for n, p in params.items():
                p.grad = grads[k][n].clone()
                t["%s.%s.grad.%d" % (prefix, n, k + 1)] = grads[k][n].clone()
            opt.step()
            for n, p in params.items():
                t["%s.%s.param.%d" % (prefix, n, k + 1)] = p.detach().clone()
                for s in state_names:
                    t["%s.%s.%s.%d" % (prefix, n, s, k + 1)] = opt.state[p][s].clone()

    run("adamw", lambda ps: torch.optim.AdamW(
        [{"params": [ps["w"]], "weight_decay": 0.1}, {"params": [ps["b"]], "weight_decay": 0.0}],
        lr=1e-3, betas=(0.9, 0.95), eps=1e-8, foreach=False), ["exp_avg", "exp_avg_sq"])
    meta.update({"adamw.lr": "1e-3", "adamw.beta1": "0.9", "adamw.beta2": "0.95", "adamw.eps": "1e-8",
                 "adamw.weight_decay": "0.1 on w (dim >= 2), 0 on b"})

    run("sgd", lambda ps: torch.optim.SGD([ps["w"], ps["b"]], lr=0.05, momentum=0.9, dampening=0.0,
                                          weight_decay=0.0, nesterov=False, foreach=False), ["momentum_buffer"])
    meta.update({"sgd.lr": "0.05", "sgd.momentum": "0.9", "sgd.dampening": "0", "sgd.weight_decay": "0",
                 "sgd.nesterov": "false"})

    # global-norm clipping, max_norm 1.0: one case that clips, one that does not
    for case, std in (("big", 1.0), ("small", 0.05)):
        gw, gb = randn(4, 5, std=std), randn(5, std=std)
        ps = [torch.nn.Parameter(torch.zeros(4, 5)), torch.nn.Parameter(torch.zeros(5))]
        ps[0].grad, ps[1].grad = gw.clone(), gb.clone()
        total = torch.nn.utils.clip_grad_norm_(ps, max_norm=1.0)
        t.update({"clip.%s.w.grad" % case: gw, "clip.%s.b.grad" % case: gb,
                  "clip.%s.total_norm" % case: total.reshape(1).clone(),
                  "clip.%s.w.clipped" % case: ps[0].grad.clone(), "clip.%s.b.clipped" % case: ps[1].grad.clone()})
    meta["clip.max_norm"] = "1.0"

    t = {k: f32(v) for k, v in t.items()}
    safetensors_py.save(t, os.path.join(OUT, "optim.safetensors"), meta)
    print("optim.safetensors                %d tensors" % len(t))


# --------------------------------------------------------------------------------------------
# extend.safetensors: a learned table fitted to a longer context (ordo train --init ... --context)
# --------------------------------------------------------------------------------------------

def extend_fixtures():
    """--extend-pos interpolate: F.interpolate(mode="linear", align_corners=True) over the
    positions, in float64 from float32 tables (ends kept, row p at x = p (T0-1)/(T-1))."""
    g = torch.Generator().manual_seed(13)
    t, meta = {}, {"generator": GENERATOR,
                   "method": "F.interpolate(table.T[None], size=T, mode='linear', align_corners=True)"}
    for name, T0, T, C in (("a", 5, 13, 3), ("b", 16, 64, 4), ("c", 64, 256, 8), ("d", 7, 8, 2)):
        src = torch.randn(T0, C, generator=g, dtype=torch.float32)
        out = F.interpolate(src.double().t()[None], size=T, mode="linear", align_corners=True)[0].t()
        t.update({"%s.src" % name: src, "%s.out" % name: f32(out)})
    safetensors_py.save(t, os.path.join(OUT, "extend.safetensors"), meta)
    print("extend.safetensors               %d tensors" % len(t))


def main():
    torch.manual_seed(0)  # nothing should depend on the global generator; fixed anyway
    os.makedirs(OUT, exist_ok=True)
    gpt_fixtures()
    ops_fixtures()
    optim_fixtures()
    # every make_fixtures_<part>.py beside this file, in name order: a scheme's fixtures are a
    # file of their own, run without a line here (each draws from its own seeds: any order)
    for f in sorted(os.listdir(HERE)):
        if f.startswith("make_fixtures_") and f.endswith(".py"):
            part = importlib.import_module(f[:-3])
            (getattr(part, "main", None) or part.fixtures)()
    extend_fixtures()
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print("total %.0f KiB in %s" % (total / 1024, OUT))


if __name__ == "__main__":
    main()
