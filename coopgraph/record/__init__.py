"""The record of a run: its trace file, manifest and agent checkpoints as written, the run read back from them,
and what is made from a trace alone: the viewer, the OpenTelemetry export and the process measures
(docs/architecture.md, docs/traces.md).

Nothing is imported here, so reading a trace loads neither the runtime nor the viewer.
"""
