"""SGLang 0.5.23's verdict on every producer-written drafter (fixtures/producers.py) and every
published config (fixtures/real-configs, with the variants test_conformance.py derives), under
the sglang-* profile of its family, as read from SGLang's source: a table, one row per drafter.

The ``why`` of each row names what SGLang does with exactly that checkpoint (paths under
python/sglang/ of the 0.5.23 wheel). Slow: the producers' own code writes their drafters.

Not in the table: ``qwen3-8b-eagle3-nvfp4-head``, whose verdict turns on how SGLang
quantises every linear layer of a drafter that declares ModelOpt NVFP4 with no exclude list,
which no rule models (the gate passes it; SGLang would build packed FP4 parameters for the
unpacked BF16 decoder weights and fail the load).
"""

from __future__ import annotations

import pytest
from test_conformance import VARIANTS, built  # noqa: F401 (the real drafters, built once)
from test_producers import drafters, targets  # noqa: F401 (the producers' drafters, once)

from dspark_ckpt.commands.inspect import inspect_checkpoint
from dspark_ckpt.facts.config import local_drafter_config
from dspark_ckpt.facts.target import load_target
from dspark_ckpt.profiles.registry import PROFILES, detect_family

pytestmark = pytest.mark.slow

SPECULATORS = (
    "SGLang has no speculators-format translation (no model_type: AutoConfig cannot load it)"
)
UNREGISTERED = "and its class is none SGLang registers (model_loader/utils.py:224-232)"
HEAD_FROM_TARGET = "lm_head./embed_tokens. skipped, the target's used (dspark.py:632-641)"

# (drafter, profile, deployable, error codes among the findings, why)
PRODUCERS = [
    ("eagle-llm-eagle1", "sglang-eagle", False, ("DSC680",),
     "LlamaForCausalLM, as eagle-llm writes it: judged as classic EAGLE by its folder's name "
     "(vLLM's reading of the path); SGLang looks the name up as it stands, a target model's "
     "class, and builds no EAGLE drafter (models/llama.py)"),
    ("eagle-llm-eagle1-sglang", "sglang-eagle", True, (),
     "LlamaForCausalLMEagle registered (models/llama_eagle.py:153); fc with its bias "
     "(llama_eagle.py:91) and every layer weight shipped, layer 0 without input_layernorm "
     "(llama_eagle.py:52-56); embedding and head set from the target (eagle_worker_v2.py:371-378)"),
    ("eagle-llm-eagle1-vllm", "sglang-eagle", False, ("DSC680",),
     "EagleLlamaForCausalLM is vLLM's name: SGLang registers LlamaForCausalLMEagle "
     "(models/registry.py:93-114: refused at start-up)"),
    ("specforge-dflash", "sglang-dflash", True, (),
     "DFlashDraftModel registered; dflash_config.mask_token_id 999 < Vt 1000 "
     "(dflash_worker_v2.py:1399-1408); ids [1, 3, 5] in [0, 8) and fc [64, 192] for 3 "
     "(dflash_utils.py:556-585, dflash.py:750-774); every layer weight shipped"),
    ("specforge-dflash-no-mask", "sglang-dflash", True, (),
     "no mask id: dflash_config.mask_token (<|MASK|>) is resolved from the target tokenizer, "
     "added if absent (dflash_worker_v2.py:1424-1461): not refused"),
    ("specforge-dspark", "sglang-dspark", False, ("DSC107",),
     "markov_rank only in dflash_config: build_markov_head reads getattr(config, "
     "'markov_rank', 0) and raises (dspark.py:385-391)"),
    ("specforge-dspark-serving", "sglang-dspark", True, (),
     "top-level markov_rank 8 and markov_head_type vanilla (dspark.py:385-392); Markov "
     "[V, r] both (dspark.py:198-199); V 1000 = the target head's rows (markov_sample.py:269); "
     f"mask 999 < 1000 (dspark_config.py:124-128); {HEAD_FROM_TARGET}; the confidence head is "
     "not built under the default static ragged verify (dspark.py:487-489)"),
    ("specforge-dspark-padded", "sglang-dspark", False, ("DSC207", "DSC605"),
     "V 1024 over the target head's 1000 rows: the Markov bias [V] is asserted no wider than "
     "the target's logits (markov_sample.py:269), and an id in [1000, 1024) would index past "
     "the target's embedding"),
    ("specforge-dspark-gated-serving", "sglang-dspark", True, (),
     "top-level markov_head_type gated: the model builds GatedMarkovHead, whose gate_proj the "
     "checkpoint holds (dspark.py:395-398, 653-658)"),
    ("specforge-eagle3-full", "sglang-eagle3", True, (),
     "LlamaForCausalLMEagle3; draft_vocab_size 1000 with lm_head; a zero d2t is the identity "
     "hot_token_id (llama_eagle3.py:350-353); midlayer.* is layers.0 (llama_eagle3.py:338-348); "
     "no eagle_config: the runner feeds [2, 4, 5] and fc is built for 3 (llama.py:933-936, "
     "llama_eagle3.py:156-161)"),
    ("specforge-eagle3-pruned", "sglang-eagle3", True, (),
     "draft_vocab_size 500 with lm_head [500, H] and d2t: hot_token_id = d2t + arange"),
    ("specforge-eagle3-aux-ids", "sglang-eagle3", True, (),
     "eagle_config.eagle_aux_hidden_state_layer_ids [1, 3, 5]: captured at id + 1, within "
     "[0, 7] (spec_aux_hidden_state.py:186-196, llama.py:938-941); fc for 3"),
    ("specforge-eagle3-sglang-export", "sglang-eagle3", True, (),
     "SpecForge's SGLang export drops the embedding: set_embed shares the target's "
     "(eagle_worker_v2.py:357-363, llama.py:910-916)"),
    ("specforge-peagle-pruned", "sglang-eagle3", False, ("DSC680",),
     "PEagleDraftModel is no class SGLang registers, nor transformers: 'Cannot find model "
     "module' (model_loader/utils.py:154-167): P-EAGLE is not served"),
    ("speculators-dflash-pruned", "sglang-dflash", False, ("DSC604",), SPECULATORS),
    ("speculators-dspark-pruned", "sglang-dspark", False, ("DSC604",), SPECULATORS),
    *[
        (name, "sglang-eagle3", False, ("DSC604", "DSC680"), f"{SPECULATORS}, {UNREGISTERED}")
        for name in (
            "speculators-eagle3-4-aux",
            "speculators-eagle3-equal",
            "speculators-eagle3-padded",
            "speculators-eagle3-pruned",
            "speculators-peagle-pruned",
        )
    ],
]  # fmt: skip

REAL = [
    *[
        (name, "sglang-eagle3", True, (),
         "draft_vocab_size 32000 with lm_head and d2t (hot_token_id); the ids SGLang feeds "
         "(eagle_config's, else [2, N // 2, N - 3]) are 3, as fc")
        for name in (
            "specforge-llama3.1-8b-eagle3",
            "specforge-qwen3-8b-eagle3",
            "specforge-gpt-oss-20b-eagle3",
            "specforge-gpt-oss-120b-eagle3",
        )
    ],
    ("specforge-longcat-flash-eagle3", "sglang-eagle3", True, (),
     "a zero d2t is the identity hot_token_id; LongcatFlashForCausalLM captures aux states "
     "(longcat_flash.py:1112-1119)"),
    ("specforge-qwen3-8b-dflash", "sglang-dflash", True, (),
     "mask 151669 < Vt 151936; ids [1, 9, 17, 25, 33] in [0, 36); fc for 5"),
    ("specforge-qwen3-8b-dspark", "sglang-dspark", False, ("DSC107",),
     "the training config: markov_rank only nested (dspark.py:385-391)"),
    ("specforge-inkling-dspark", "sglang-dspark", False, ("DSC107",),
     "the training config: markov_rank only nested (dspark.py:385-391)"),
    ("qwen3-8b-eagle3-no-d2t", "sglang-eagle3", False, ("DSC103",),
     "Vd 32000 < Vt without d2t: hot_token_id stays None, draft id i is proposed as target "
     "id i (llama_eagle3.py:323, eagle_worker_v2.py:365-368)"),
    ("qwen3-8b-eagle3-no-lm_head", "sglang-eagle3", False, ("DSC601",),
     "draft_vocab_size 32000 set and no lm_head: the [Vd, H] head is built and nothing loads "
     "it (llama_eagle3.py:302-311, 370-378): uninitialised memory, no error"),
    ("qwen3-8b-eagle3-int32-d2t", "sglang-eagle3", True, (),
     "int32 d2t + int64 arange is an int64 hot_token_id (llama_eagle3.py:352)"),
    ("qwen3-8b-dspark-serving", "sglang-dspark", True, (),
     f"keys at the top level; V 151936 = the target head's rows; {HEAD_FROM_TARGET}"),
    ("inkling-dspark-serving", "sglang-dspark", True, (),
     "V 201024 = Inkling's padded head (org_vocab_size = padded_vocab_size, inkling.py:737-741); "
     "mask 200064 < padded_vocab_size 201024 (dspark_worker_v2.py:246-254)"),
    ("qwen3-8b-dspark-serving-prefixed-embed", "sglang-dspark", True, (),
     f"model.embed_tokens.weight: removeprefix('model.'), then skipped; {HEAD_FROM_TARGET}"),
    ("llama3.1-8b-eagle3-q-of-hidden-width", "sglang-eagle3", False, ("DSC113",),
     "midlayer q_proj [4096, 4096]: layer 0's q/k/v take [embedding, hidden state], 2H "
     "(models/llama_eagle3.py:62-75), and the weight loader asserts each shard's width"),
    ("qwen3-8b-eagle3-fused-qkv-of-hidden-width", "sglang-eagle3", False, ("DSC113",),
     "qkv_proj [6144, 4096]: split by rows into q/k/v, each of which must be 2H wide "
     "(models/llama_eagle3.py:62-75)"),
]  # fmt: skip

NOT_IN_THE_TABLE = {"qwen3-8b-eagle3-nvfp4-head"}


def _judge(drafter, target, profile: str, deployable: bool, codes, why):
    r = inspect_checkpoint(str(drafter), load_target(target), profile)
    found = {f.code for f in r.findings if f.severity == "error" and f.profile in (None, profile)}
    assert r.verdicts[profile] is deployable, (why, sorted(found))
    if deployable:
        assert not found, (why, sorted(found))
    else:
        assert set(codes) <= found, (why, sorted(found))


@pytest.mark.parametrize("row", PRODUCERS, ids=lambda r: f"{r[0]}@{r[1]}")
def test_producer_drafter_under_sglang(drafters, targets, row):  # noqa: F811
    _judge(drafters / row[0], targets[1000], *row[1:])


@pytest.mark.parametrize("row", REAL, ids=lambda r: f"{r[0].removeprefix('specforge-')}@{r[1]}")
def test_published_config_under_sglang(built, row):  # noqa: F811
    drafter, target = built[row[0]]
    _judge(drafter, target, *row[1:])


def test_every_drafter_has_a_row_under_the_sglang_profile_of_its_family(
    drafters,  # noqa: F811
    built,  # noqa: F811
):
    rows = {(r[0], r[1]) for r in (*PRODUCERS, *REAL)}
    every = {d.name: d for d in drafters.iterdir()} | {k: v[0] for k, v in built.items()}
    assert set(VARIANTS) <= set(every)
    for name, path in every.items():
        if name in NOT_IN_THE_TABLE:
            continue
        family = detect_family(local_drafter_config(path))
        sglang = {  # the family's own profiles (a variant's judges its architecture alone)
            n
            for n, p in PROFILES.items()
            if p.runtime == "SGLang" and p.family == family and not p.variant
        }
        assert {(name, n) for n in sglang} <= rows, name
