"""The language-model backends, each one `ChatBackend` registered by name (docs/llm.md, "Add a backend").

Registrations are lazy paths: naming a backend imports nothing until a setting asks for it. The order is the order
an unknown setting lists them in.
"""

from coopgraph.llm.backends.base import Capabilities, ChatBackend
from coopgraph.llm.backends.registry import backend_for_setting, backend_named, register_backend, registered_backends

register_backend("local", "coopgraph.llm.backends.embedded:EMBEDDED")
register_backend("openai", "coopgraph.llm.backends.openai:OPENAI")
register_backend("vllm", "coopgraph.llm.backends.vllm:VLLM")
register_backend("llamacpp", "coopgraph.llm.backends.llamacpp:LLAMACPP")
register_backend("fake", "coopgraph.llm.backends.fake:FAKE")
register_backend("langchain", "coopgraph.llm.backends.langchain:LANGCHAIN")

__all__ = ["Capabilities", "ChatBackend", "backend_for_setting", "backend_named", "register_backend",
           "registered_backends"]
