"""Sources: the only layer that reads disk or network, and the only one that writes.

A checkpoint is read from a local folder, a single file, or a Hugging Face Hub
repository, through one interface; every byte is read by the strict safetensors and
JSON readers here, bounded in size and time. Nothing here knows what a drafter is.
"""
