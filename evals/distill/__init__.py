"""Distilling the experts' decisions into a small LoRA adapter the embedded server can load (`local-coop`).

`data` (project environment) turns decision points into prompt/completion pairs rendered exactly as the
server will see them; `train` (a separate environment with PyTorch) fits the adapter and writes it as GGUF.
"""
