"""dspark-ckpt: pre-deploy checks for speculative-decoding drafter checkpoints."""

__version__ = "0.1.0"
