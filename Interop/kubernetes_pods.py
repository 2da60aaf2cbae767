"""The rendered deploy/kubernetes workloads as podman containers, as near as a machine without a cluster comes to
what a kubelet would run: each StatefulSet's and Deployment's first container with its image, args and env, its
Secret volume as files, its emptyDir and volumeClaimTemplates as fresh folders, and its security context (user and
group, read-only root file system, every capability dropped, no privilege escalation). Services become network
aliases on one podman network, so pods reach each other by the Service names the manifests use.

Usage: kubernetes_pods.py RENDERED_YAML NETWORK WORK NAME...   prints one podman run command per NAME (a workload),
       each a line of shell words, for Interop/kubernetes_check.sh to run.
"""
import base64
import os
import shlex
import sys

import yaml

rendered, network, work, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
documents = [d for d in yaml.safe_load_all(open(rendered)) if d]
by_kind = {}
for document in documents:
    by_kind.setdefault(document["kind"], {})[document["metadata"]["name"]] = document


def services_for(labels):
    """The names of the Services whose selector picks a pod with these labels."""
    for name, service in by_kind.get("Service", {}).items():
        selector = service["spec"].get("selector", {})
        if selector and all(labels.get(k) == v for k, v in selector.items()):
            yield name


def podman_run(name):
    workload = by_kind.get("StatefulSet", {}).get(name) or by_kind["Deployment"][name]
    pod = workload["spec"]["template"]
    spec = pod["spec"]
    container = spec["containers"][0]
    security = {**spec.get("securityContext", {}), **container.get("securityContext", {})}
    words = ["podman", "run", "-d", "--name", name, "--hostname", f"{name}-0", "--network", network]
    for alias in services_for(pod["metadata"]["labels"]):
        words += ["--network-alias", alias]
    if "runAsUser" in security:
        words += ["--user", f"{security['runAsUser']}:{security.get('runAsGroup', security['runAsUser'])}"]
    if security.get("readOnlyRootFilesystem"):
        words.append("--read-only")
    if "ALL" in security.get("capabilities", {}).get("drop", []):
        words += ["--cap-drop", "ALL"]
    if security.get("allowPrivilegeEscalation") is False:
        words += ["--security-opt", "no-new-privileges"]
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    claims = {c["metadata"]["name"] for c in workload["spec"].get("volumeClaimTemplates", [])}
    for mount in container.get("volumeMounts", []):
        volume = volumes.get(mount["name"], {})
        folder = os.path.join(work, name, mount["name"])
        os.makedirs(folder, exist_ok=True)
        if "secret" in volume:
            secret = by_kind["Secret"][volume["secret"]["secretName"]]
            for key, value in secret.get("data", {}).items():
                with open(os.path.join(folder, key), "wb") as out:
                    out.write(base64.b64decode(value))
        elif mount["name"] in claims or "emptyDir" in volume:
            # A fresh volume, owned by the pod's fsGroup as a kubelet would make it.
            os.chown(folder, security.get("runAsUser", 0), security.get("fsGroup", security.get("runAsGroup", 0)))
        else:
            sys.exit(f"{name}: volume {mount['name']} is neither a Secret, an emptyDir nor a volume claim")
        words += ["-v", f"{folder}:{mount['mountPath']}" + (":ro" if mount.get("readOnly") else "")]
    for variable in container.get("env", []):
        words += ["-e", f"{variable['name']}={variable['value']}"]
    image = container["image"]
    words += [image if ":" in image or "/" in image else f"{image}:latest"]
    words += container.get("args", [])
    return shlex.join(words)


for name in names:
    print(podman_run(name))
