# apnsim's release binary in a slim image: the gateway, devices and media server of docker-compose.yml.
# Built with Swift's official image; the runtime image is its slim variant (the Swift runtime libraries only).
# `docker build --build-arg RUNTIME_IMAGE=swift:6.2-noble -t apnsim:toolchain .` puts the same apnsim on the full
# Swift image, whose devices can also build teams' kind swift extensions (swiftc; the mirror is inside the binary).
ARG SWIFT_VERSION=6.2
ARG RUNTIME_IMAGE=swift:${SWIFT_VERSION}-noble-slim
FROM swift:${SWIFT_VERSION}-noble AS build
WORKDIR /src
# Dependencies first, so changing apnsim's sources does not fetch them again.
COPY Package.swift ./
RUN swift package resolve
COPY . .
# What the image holds, laid out as it is installed: the binary with the inbox page's files, which it looks for
# beside itself; the development PKI, the sandbox world and the media fixtures, as the commands' defaults expect them.
RUN swift build -c release --product apnsim \
 && bin="$(swift build -c release --show-bin-path)" \
 && mkdir -p /install/usr/local/bin /install/opt/apnsim \
 && cp "$bin/apnsim" /install/usr/local/bin/apnsim \
 && cp -R "$bin/apnsim_APNSimInbox.resources" /install/usr/local/bin/ \
 && cp -R Certs Scenarios /install/opt/apnsim/

# The image: slim by default, without a toolchain (a kind swift extension is refused with how to get one).
FROM ${RUNTIME_IMAGE}
RUN useradd --system --create-home apnsim \
 && mkdir -p /var/lib/apnsim && chown apnsim /var/lib/apnsim
COPY --from=build /install/usr/local/bin /usr/local/bin
COPY --from=build --chown=apnsim /install/opt/apnsim /opt/apnsim
WORKDIR /opt/apnsim
USER apnsim
# Provider API (development, production), device link, control API, media server.
EXPOSE 2197 2198 5223 8197 8199
ENTRYPOINT ["apnsim"]
CMD ["gateway", "--host", "0.0.0.0"]
