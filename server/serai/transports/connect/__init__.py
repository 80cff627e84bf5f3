"""serai.v1.MatchService over HTTP (Connect, gRPC-Web, JSON): connectrpc on uvicorn."""
