package io.drover.core.subscriptions;

/**
 * Where plugins live on a host, relative to the agent's root (docs/operations.md, Subscriptions):
 * {@code usr/local/gse} is GSE's home; official plugins in {@code plugins/bin} with sub-configs
 * {@code plugins/<path>/<stem>_<group_id><ext>}; third-party plugins in {@code external_plugins/<group_id>/<plugin>/};
 * packages are pushed to {@code tmp/nodeman_upload/}.
 */
public final class DeployPaths {
    public static final String GSE_HOME = "usr/local/gse";
    public static final String UPLOAD_DIR = "tmp/nodeman_upload";

    private DeployPaths() {
    }

    /** An official plugin's sub-config: {@code bkmonitorbeat_script.conf} → {@code bkmonitorbeat_script_<group_id>.conf}. */
    public static String officialConfig(String templatePath, String templateName, String groupId) {
        int dot = templateName.lastIndexOf('.');
        String stem = dot > 0 ? templateName.substring(0, dot) : templateName;
        String ext = dot > 0 ? templateName.substring(dot) : "";
        return join(GSE_HOME + "/plugins", templatePath, stem + "_" + groupId + ext);
    }

    public static String officialBin() {
        return GSE_HOME + "/plugins/bin";
    }

    /** A third-party plugin's directory: {@code external_plugins/<group_id>/<plugin>}. */
    public static String externalDir(String groupId, String plugin) {
        return GSE_HOME + "/external_plugins/" + groupId + "/" + plugin;
    }

    public static String externalConfig(String groupId, String plugin, String templatePath, String templateName) {
        return join(externalDir(groupId, plugin), templatePath, templateName);
    }

    public static String upload(String packageFile) {
        return UPLOAD_DIR + "/" + packageFile;
    }

    private static String join(String base, String path, String name) {
        String middle = path == null || path.isEmpty() ? "" : "/" + strip(path);
        return base + middle + "/" + name;
    }

    private static String strip(String path) {
        String p = path;
        while (p.startsWith("/")) {
            p = p.substring(1);
        }
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }
}
