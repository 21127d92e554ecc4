"""litellm, imported lazily (it costs seconds) and with our in-process providers
registered: the embedded model (agents/engine/local_model.py) and the scripted models
(agents/model/scripted.py), each a ``litellm.CustomLLM`` under its provider prefix."""
from __future__ import annotations

import os

# Before litellm is imported anywhere: no price-list download, no hub lookups.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import threading
import warnings
from types import ModuleType
from typing import Any

from agents.engine.local_model import handler as local_handler
from agents.model import scripted
from agents.model.config import EMBEDDED_PROVIDER

_litellm: ModuleType | None = None
_litellm_lock = threading.RLock()
_providers: dict[str, Any] = {}


def lm() -> Any:  # Any: the litellm module, imported lazily
    """The litellm module, imported once, with our custom providers registered."""
    global _litellm
    if _litellm is None:
        with _litellm_lock:
            if _litellm is None:
                # litellm's own types trip a harmless pydantic warning; keep the player's terminal clean.
                warnings.filterwarnings("ignore", message=r".*is using the `ReadOnly` qualifier", category=UserWarning)
                import litellm  # lazy: importing litellm costs seconds

                litellm.telemetry = False
                litellm.suppress_debug_info = True
                _litellm = litellm
                register_provider(EMBEDDED_PROVIDER, local_handler())
                register_provider(scripted.PROVIDER, scripted.handler())
    return _litellm


def loaded() -> ModuleType | None:
    """litellm if it has been imported, else None (naming an error must not import it)."""
    return _litellm


def in_process(provider: str) -> bool:
    """Whether ``provider`` is one of ours, served in this process."""
    return provider in _providers


def register_provider(name: str, handler: Any) -> None:  # Any: a litellm.CustomLLM (imported lazily)
    """Register (or replace) a ``litellm.CustomLLM`` under the provider prefix ``name``."""
    litellm = lm()
    with _litellm_lock:
        _providers[name] = handler
        others = [p for p in (litellm.custom_provider_map or []) if p.get("provider") != name]
        litellm.custom_provider_map = others + [{"provider": name, "custom_handler": handler}]
        try:
            from litellm.utils import custom_llm_setup  # lazy: part of litellm (seconds to import)

            custom_llm_setup()
        except ImportError:  # pragma: no cover - older litellm sets up inside completion()
            pass


__all__ = ["in_process", "lm", "loaded", "register_provider"]
