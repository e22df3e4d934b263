"""The browser's door: gRPC-Web on the same contract, served beside the page.

An entry point like `services/bootstrap.py`'s servers: it forwards each gRPC-Web call to the
gRPC services as a real gRPC call and knows nothing of the services themselves
(docs/ARCHITECTURE.md, docs/CLIENTS.md's "Browsers").
"""

from .assets import ASSETS_DIR
from .door import METHODS, SERVER_STREAMING, UNARY, Door, Origins, Upstreams

__all__ = ["ASSETS_DIR", "METHODS", "SERVER_STREAMING", "UNARY", "Door", "Origins", "Upstreams"]
