"""What each runtime release's loader does with a drafter: the config it sees
(``view``), the module tree it builds and how the stored names meet it (``model``)."""
