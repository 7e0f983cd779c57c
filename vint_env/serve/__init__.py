"""`vint-serve`: a table in the browser (:mod:`.app` the web app and its JSON API, :mod:`.tables` the
tables of a server process, :mod:`.view` what a seat may see, :mod:`.cli` the command).

Needs the ``serve`` extra: ``pip install "vint-env[serve]"`` (Starlette and uvicorn).
"""
