"""Reading and writing checkpoint files: the only layer that touches disk or network.

``base.Source`` is where a checkpoint's files come from: ``local.LocalSource`` (a folder,
or one ``.safetensors`` file), ``hub.HubSource`` (a Hugging Face Hub repository, read
header-only) and ``overlay.OverlaySource`` (a source as ``fix`` plans to leave it).
``checkpoint.build_checkpoint`` reads any of them into a ``Checkpoint`` (config and
safetensors headers), with the layout rules of ``layout`` held once; ``safetensors`` is
the strict header reader, ``atomic`` the transactional writer. Nothing here imports
from the layers above (``facts`` and up).
"""
