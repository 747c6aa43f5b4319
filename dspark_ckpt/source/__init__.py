"""Reading and writing checkpoint files: the only layer that touches disk or network.

``base.Source`` is where a checkpoint's files come from: ``local.LocalSource`` (a folder,
or one ``.safetensors`` file), ``hub.HubSource`` (a Hugging Face Hub repository, read
header-only) and ``overlay.OverlaySource`` (a source as ``fix`` plans to leave it).
``checkpoint.build_checkpoint`` reads any of them into a ``Checkpoint`` (config and
safetensors headers), with the layout rules of ``layout`` held once; ``safetensors`` is
the strict header reader, ``atomic`` the transactional writer (``journal`` its undo
record and the recovery of a write killed outright, ``folders`` the flags that refuse a
folder). ``hub`` reads through ``hub_ref`` (the Hub id) and ``hub_http`` (the bounded
HTTP client). Nothing here imports
from the layers above (``facts`` and up).
"""
