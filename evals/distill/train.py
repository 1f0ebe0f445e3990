"""Fit a LoRA adapter on distillation pairs and write it as a llama.cpp GGUF adapter.

Runs in the distillation environment (`make distill-env`: PyTorch CPU, transformers, peft, gguf), not in the
project's, so torch never enters the default install; it reads only the JSONL that `evals.distill.data` wrote.
The base weights are the very GGUF the server loads (de-quantised by transformers), so the adapter is fitted
to the numbers it will run against. Only the answer tokens are scored, and logits are computed for those
positions alone: Gemma's 262k-token vocabulary would otherwise cost more than the whole transformer.

Adapted layers are the value/output projections and the MLP. Query and key projections are left alone because
llama.cpp may store them permuted for its rotary layout; the adapter then maps onto GGUF tensors one to one.

With `--init ADAPTER.gguf` training starts from an adapter this script wrote (a shipped round), so a DAgger round
can build on what earlier rounds learned when their decision files are gone: the weights carry the aggregate.

Run: `python evals/distill/train.py PAIRS.jsonl --base MODEL.gguf --out ADAPTER.gguf [--epochs 1] [--limit N]
[--init ADAPTER.gguf]`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer

TARGET_MODULES = ["v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def read_pairs(path: Path, splits: set[str]) -> list[dict[str, Any]]:
    with path.open() as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return [r for r in rows if r["split"] in splits]


def encode(tokenizer: Any, pair: dict[str, Any], max_prompt: int) -> tuple[list[int], int]:
    """Token ids of prompt+completion (prompt tokenised alone, as the server does) and the completion length."""
    prompt = tokenizer(pair["prompt"], add_special_tokens=True)["input_ids"]
    completion = tokenizer(pair["completion"], add_special_tokens=False)["input_ids"]
    if len(prompt) > max_prompt:  # keep the head (instructions, goal) and the tail (options); rare
        prompt = prompt[: max_prompt // 2] + prompt[-(max_prompt - max_prompt // 2):]
    return prompt + completion, len(completion)


def answer_loss(model: Any, ids: list[int], n_answer: int) -> torch.Tensor:
    """Cross-entropy on the answer tokens only, computing logits just for the positions that predict them."""
    input_ids = torch.tensor([ids])
    logits = model(input_ids=input_ids, logits_to_keep=n_answer + 1).logits[0, :-1]
    targets = input_ids[0, -n_answer:]
    return torch.nn.functional.cross_entropy(logits.float(), targets)


@torch.no_grad()
def accuracy(model: Any, tokenizer: Any, pairs: list[dict[str, Any]], max_prompt: int) -> float:
    """Share of pairs whose whole answer is what greedy decoding would write (teacher-forced argmax)."""
    if not pairs:
        return float("nan")
    model.eval()
    hits = 0
    for pair in pairs:
        ids, n_answer = encode(tokenizer, pair, max_prompt)
        logits = model(input_ids=torch.tensor([ids]), logits_to_keep=n_answer + 1).logits[0, :-1]
        hits += int(torch.equal(logits.argmax(-1), torch.tensor(ids[-n_answer:])))
    model.train()
    return hits / len(pairs)


def gguf_tensor_name(module_name: str, name_map: Any) -> str:
    """`...model.layers.3.mlp.up_proj` -> `blk.3.ffn_up.weight`, through gguf's own HF-to-GGUF name map."""
    hf_name = module_name.split("base_model.model.", 1)[-1] + ".weight"
    mapped = name_map.get_name(hf_name, try_suffixes=(".weight",))
    if mapped is None:
        raise KeyError(f"no GGUF name for {hf_name}")
    return mapped


def export_gguf(model: Any, out: Path, *, alpha: float, arch: str, n_layers: int) -> int:
    """Write the LoRA A/B matrices in llama.cpp's adapter layout; returns the number of adapted tensors."""
    name_map = gguf.get_tensor_name_map(_arch_enum(arch), n_layers)
    writer = gguf.GGUFWriter(str(out), arch)
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", float(alpha))
    count = 0
    for name, module in model.named_modules():
        if not hasattr(module, "lora_A") or "default" not in module.lora_A:
            continue
        base = gguf_tensor_name(name, name_map)
        a = module.lora_A["default"].weight.detach().float().numpy()  # (r, in)
        b = module.lora_B["default"].weight.detach().float().numpy()  # (out, r)
        writer.add_tensor(base + ".lora_a", a.astype(np.float16))
        writer.add_tensor(base + ".lora_b", b.astype(np.float16))
        count += 1
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return count


def load_gguf_adapter(model: Any, path: Path, *, alpha: float, arch: str, n_layers: int) -> int:
    """Copy a GGUF adapter's A/B matrices into the PEFT model's LoRA modules (the inverse of `export_gguf`);
    refuses an adapter of another rank, alpha or set of tensors, which would not be the same function."""
    reader = gguf.GGUFReader(str(path))
    field = reader.fields.get("adapter.lora.alpha")
    if field is None or reader.fields.get("general.type") is None:
        raise ValueError(f"{path}: not a LoRA adapter GGUF")
    stored_alpha = float(field.parts[field.data[0]][0])
    if stored_alpha != alpha:
        raise ValueError(f"{path}: alpha {stored_alpha}, this run's is {alpha}")
    tensors = {t.name: t.data for t in reader.tensors}
    name_map = gguf.get_tensor_name_map(_arch_enum(arch), n_layers)
    loaded = 0
    for name, module in model.named_modules():
        if not hasattr(module, "lora_A") or "default" not in module.lora_A:
            continue
        base = gguf_tensor_name(name, name_map)
        for suffix, layer in ((".lora_a", module.lora_A["default"]), (".lora_b", module.lora_B["default"])):
            data = tensors.pop(base + suffix, None)
            if data is None:
                raise ValueError(f"{path}: no tensor {base + suffix}")
            if tuple(data.shape) != tuple(layer.weight.shape):
                raise ValueError(f"{path}: {base + suffix} is {tuple(data.shape)}, the model's is "
                                 f"{tuple(layer.weight.shape)} (another --rank?)")
            with torch.no_grad():
                layer.weight.copy_(torch.from_numpy(np.asarray(data, dtype=np.float32)))
        loaded += 1
    if tensors:
        raise ValueError(f"{path}: {len(tensors)} tensors this model has no module for, e.g. {next(iter(tensors))}")
    return loaded


def base_architecture(path: Path) -> str:
    """The architecture name the base GGUF declares (what llama.cpp checks the adapter against)."""
    field = gguf.GGUFReader(str(path)).fields["general.architecture"]
    return bytes(field.parts[field.data[0]]).decode()


def _arch_enum(arch: str) -> Any:
    for key, value in gguf.MODEL_ARCH_NAMES.items():
        if value == arch:
            return key
    raise KeyError(f"gguf does not know architecture {arch!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", type=Path)
    parser.add_argument("--base", type=Path, required=True, help="the base GGUF the server loads")
    parser.add_argument("--out", type=Path, required=True, help="adapter GGUF to write")
    parser.add_argument("--train-splits", default="train,test", help="splits of the pairs file to train on")
    parser.add_argument("--eval-split", default="validation", help="split to report accuracy on")
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--limit", type=int, default=None, help="train on at most N pairs (seeded sample)")
    parser.add_argument("--eval-limit", type=int, default=60)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--alpha", type=float, default=32.0)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--accumulate", type=int, default=8)
    parser.add_argument("--max-prompt", type=int, default=768)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--init", type=Path, default=None, help="start from this adapter GGUF (an earlier round)")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    train = read_pairs(args.pairs, set(args.train_splits.split(",")))
    held = read_pairs(args.pairs, {args.eval_split})
    rng.shuffle(train)
    train = train[: args.limit] if args.limit else train
    held = held[: args.eval_limit]

    started = time.monotonic()
    tokenizer = AutoTokenizer.from_pretrained(args.base.parent, gguf_file=args.base.name)
    model = AutoModelForCausalLM.from_pretrained(args.base.parent, gguf_file=args.base.name, dtype=torch.float32)
    arch = base_architecture(args.base)
    n_layers = model.config.num_hidden_layers
    model = get_peft_model(model, LoraConfig(r=args.rank, lora_alpha=args.alpha, lora_dropout=0.0,
                                             target_modules=TARGET_MODULES, task_type="CAUSAL_LM"))
    if args.init is not None:
        try:
            loaded = load_gguf_adapter(model, args.init, alpha=args.alpha, arch=arch, n_layers=n_layers)
        except ValueError as exc:
            print(f"error: --init {exc}", file=sys.stderr)
            return 2
        print(f"started from {args.init} ({loaded} adapted tensors)", flush=True)
    print(f"loaded {arch} ({n_layers} layers) in {time.monotonic() - started:.0f} s; "
          f"{sum(p.numel() for p in model.parameters() if p.requires_grad):,} trainable parameters", flush=True)
    print(f"held-out accuracy before: {accuracy(model, tokenizer, held, args.max_prompt):.3f} on {len(held)}",
          flush=True)

    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.0)
    total = int(len(train) * args.epochs)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / 5) * max(0.1, 1 - step / max(1, total / args.accumulate)))
    model.train()
    tokens, losses, t0 = 0, [], time.monotonic()
    for step in range(total):
        pair = train[step % len(train)]
        ids, n_answer = encode(tokenizer, pair, args.max_prompt)
        loss = answer_loss(model, ids, n_answer)
        (loss / args.accumulate).backward()
        losses.append(loss.item())
        tokens += len(ids)
        if (step + 1) % args.accumulate == 0 or step + 1 == total:
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
        if (step + 1) % 50 == 0 or step + 1 == total:
            elapsed = time.monotonic() - t0
            print(f"step {step + 1}/{total}  loss {sum(losses[-50:]) / len(losses[-50:]):.3f}  "
                  f"{elapsed / (step + 1):.2f} s/example  {tokens / elapsed:.0f} tok/s", flush=True)

    print(f"held-out accuracy after: {accuracy(model, tokenizer, held, args.max_prompt):.3f} on {len(held)}",
          flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    count = export_gguf(model, args.out, alpha=args.alpha, arch=arch, n_layers=n_layers)
    print(f"wrote {args.out} ({count} adapted tensors, {args.out.stat().st_size / 1e6:.1f} MB) "
          f"after {time.monotonic() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
