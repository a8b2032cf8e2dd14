"""Retrievers for agent frameworks, over the library or the network service's client.

* :mod:`schemaseek.integrations.langchain`: ``SchemaSeekRetriever``, a LangChain
  ``BaseRetriever`` (``pip install 'schemaseek[langchain]'``);
* :mod:`schemaseek.integrations.llamaindex`: ``SchemaSeekRetriever``, a LlamaIndex
  ``BaseRetriever`` (``pip install 'schemaseek[llamaindex]'``);
* :mod:`schemaseek.integrations.common`: what both return, built once: the text an LLM reads
  and the metadata (id, kind, source, score, explanation, root path, related items).
"""
