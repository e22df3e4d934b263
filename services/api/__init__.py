"""The gRPC contract in Python: the code generated from `proto/verrater/v1/` lives here.

`from services.api.verrater.v1 import events_pb2` is the generated module of
`proto/verrater/v1/events.proto`. Never edit generated files: change the .proto and run
`python -m services.api.generate`.
"""
