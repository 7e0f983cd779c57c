"""Search bots: the double-dummy oracle (``double_dummy``, batched solves in ``dds_batch``; two-player Vint's
``vint2p_dd`` and its two-hand solver ``two_hand_dd``) and PIMC (``pimc``, ``pimc_vint2p``), which solves deals
drawn by the exact sampler (``deal_sampler``) of what a player knows."""
