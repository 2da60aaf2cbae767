# apnsim's release binary in a slim image: the gateway, devices and media server of docker-compose.yml.
# Built with Swift's official image; the runtime image is its slim variant (the Swift runtime libraries only).
ARG SWIFT_VERSION=6.2
FROM swift:${SWIFT_VERSION}-noble AS build
WORKDIR /src
# Dependencies first, so changing apnsim's sources does not fetch them again.
COPY Package.swift ./
RUN swift package resolve
COPY . .
RUN swift build -c release --product apnsim \
 && bin="$(swift build -c release --show-bin-path)" \
 && cp "$bin/apnsim" /usr/local/bin/apnsim \
 && cp -R "$bin/apnsim_APNSimGateway.resources" /usr/local/bin/

FROM swift:${SWIFT_VERSION}-noble-slim
RUN useradd --system --create-home apnsim \
 && mkdir -p /var/lib/apnsim && chown apnsim /var/lib/apnsim
# The binary and the inbox page's files, which it looks for beside itself.
COPY --from=build /usr/local/bin/apnsim /usr/local/bin/apnsim
COPY --from=build /usr/local/bin/apnsim_APNSimGateway.resources /usr/local/bin/apnsim_APNSimGateway.resources
# The development PKI, the sandbox world and the media fixtures, as the commands' defaults expect them.
COPY --chown=apnsim Certs /opt/apnsim/Certs
COPY --chown=apnsim Scenarios /opt/apnsim/Scenarios
WORKDIR /opt/apnsim
USER apnsim
# Provider API (development, production), device link, control API, media server.
EXPOSE 2197 2198 5223 8197 8199
ENTRYPOINT ["apnsim"]
CMD ["gateway", "--host", "0.0.0.0"]
