"""serai.v1.MatchService over gRPC (grpc.aio): the servicer, the server and its request log."""
