# One image for every role: `docker run IMAGE server|executive|gateway email|web|watchdog|...`.
# Dependencies come from requirements/run.lock, every one pinned with its hash.
FROM python:3.11-slim AS build
WORKDIR /src
COPY requirements/run.lock requirements/run.lock
RUN python -m venv /opt/flapjack \
 && /opt/flapjack/bin/pip install --no-cache-dir --disable-pip-version-check --require-hashes --no-deps \
      -r requirements/run.lock
COPY pyproject.toml README.md ./
COPY flapjack_py flapjack_py
COPY gateways gateways
COPY web web
RUN /opt/flapjack/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps --no-build-isolation .

FROM python:3.11-slim
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/flapjack --create-home flapjack
COPY --from=build /opt/flapjack /opt/flapjack
COPY deploy/flapjack.container.yml /etc/flapjack/flapjack.yml
ENV PATH=/opt/flapjack/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    FLAPJACK_CONFIG=/etc/flapjack/flapjack.yml
USER flapjack
WORKDIR /var/lib/flapjack
EXPOSE 3080
# The web role answers it; other roles run without a health check (compose disables it for them)
# and are restarted when they exit.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:3080/api/health', timeout=4).status != 200)"]
ENTRYPOINT ["flapjack"]
CMD ["server"]
