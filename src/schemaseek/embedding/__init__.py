"""Embedding providers: the protocol, the local ONNX model, the query cache."""
