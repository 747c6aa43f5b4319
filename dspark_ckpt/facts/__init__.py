"""Facts: what a drafter and its target are, in numbers, gathered once.

The drafter's config (vocab sizes, hidden size, the keys each runtime may read), the
target model's text config, the tokenizer comparison, the vocab classification (pruned,
equal, padded) and the values of the small mapping tensors. Read through ``source``;
rules see only what is gathered here.
"""
