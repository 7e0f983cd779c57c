"""`vint-play`: a person plays against bots at the terminal (:mod:`.cli`, :mod:`.session`)."""
