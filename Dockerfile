# apnsim in an image: the gateway, the sandbox's devices and the media server, for teams without a Swift toolchain.
#
#   docker build -t apnsim .
#   docker run --rm -p 2197:2197 -p 8197:8197 -e APNSIM_CONTROL_TOKEN=secret apnsim      # the sandbox, as apnsim up
#
# The release binary is built with Swift's official image, of the Swift version apnsim is tested with, and linked with
# Swift's standard library and Foundation inside it (--static-swift-stdlib), so the image it runs in needs no Swift:
# Ubuntu with SQLite, libcurl and the CA certificates. `--build-arg RUNTIME_IMAGE=swift:6.3-noble` runs the same binary
# on the full Swift image instead, whose devices can also build teams' own swift extensions (docs/own-extensions.md).
# BUILD_IMAGE and RUNTIME_IMAGE are the only differences between this build and CI's (Interop/image.sh), which makes
# stand-ins for both offline.
ARG SWIFT_VERSION=6.3
ARG BUILD_IMAGE=swift:${SWIFT_VERSION}-noble
ARG RUNTIME_IMAGE=ubuntu:noble

FROM ${BUILD_IMAGE} AS build
# GRDB links the system's SQLite.
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libsqlite3-dev \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The build folder is a cache kept between builds (BuildKit and podman both keep it), so a changed source file
# rebuilds in minutes rather than the quarter of an hour of a first build. What the image holds is copied out of it:
# the stripped binary, which carries the inbox page, the development PKI, the sandbox world and its media within it;
# and those files laid out in /opt/apnsim as a checkout has them, for `docker cp` and the compose file's media service.
# The OpenTelemetry trait adds the OTLP exporter (docs/tracing.md): traces go out when OTEL_* variables ask.
RUN --mount=type=cache,id=apnsim-swift-build,target=/src/.build \
    swift build -c release --product apnsim --static-swift-stdlib --traits OpenTelemetry \
 && bin="$(swift build -c release --static-swift-stdlib --traits OpenTelemetry --show-bin-path)" \
 && mkdir -p /install/usr/local/bin /install/opt/apnsim \
 && cp "$bin/apnsim" /install/usr/local/bin/apnsim \
 && strip /install/usr/local/bin/apnsim \
 && cp -R Certs Scenarios /install/opt/apnsim/

FROM ${RUNTIME_IMAGE}
# curl is for the compose file's health checks; an apnsim user owns the store's folder; UID 10001 is outside the
# ranges of the base images' own users, so a Kubernetes runAsNonRoot check can see it is not root.
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      libsqlite3-0 libcurl4 ca-certificates tzdata curl \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --user-group --create-home --home-dir /home/apnsim apnsim \
 && mkdir -p /var/lib/apnsim && chown apnsim:apnsim /var/lib/apnsim
COPY --from=build /install/usr/local/bin /usr/local/bin
COPY --from=build --chown=apnsim:apnsim /install/opt/apnsim /opt/apnsim
WORKDIR /opt/apnsim
USER 10001:10001
# Provider API (development, production), channel management (development, production), control API with the inbox,
# device link, media server.
EXPOSE 2197 2198 2195 2196 8197 5223 8199
# Every address inside the container, since ports are published from it; the control API then needs a token
# (APNSIM_CONTROL_TOKEN or APNSIM_CONTROL_TOKEN_FILE). The store keeps what the gateway answered 200 for; a device
# keeps its identity, and so its tokens, in APNSIM_HOME/devices/ID: both on the volume.
ENV APNSIM_HOST=0.0.0.0 \
    APNSIM_CONTROL_HOST=0.0.0.0 \
    APNSIM_STORE=/var/lib/apnsim/record.sqlite \
    APNSIM_HOME=/var/lib/apnsim
VOLUME /var/lib/apnsim
# apnsim is PID 1: it stops on SIGTERM (providers get GOAWAY Shutdown, devices stop, the store commits).
STOPSIGNAL SIGTERM
ENTRYPOINT ["apnsim"]
CMD ["up"]
