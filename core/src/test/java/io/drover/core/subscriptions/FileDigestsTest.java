package io.drover.core.subscriptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.Hashing;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class FileDigestsTest {
    private final Map<FileDigests.Paths, FileDigests.Paths> shared = new ConcurrentHashMap<>();
    private final UnaryOperator<FileDigests.Paths> intern = p -> shared.computeIfAbsent(p, k -> k);

    private static Map<String, String> files(String group, String script, String http) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("usr/local/gse/plugins/etc/beat_script_" + group + ".conf", script);
        files.put("usr/local/gse/external_plugins/" + group + "/beat/" + group + ".yaml", http);
        return files;
    }

    private static Map<String, String> md5s(Map<String, String> files) {
        Map<String, String> md5s = new HashMap<>();
        files.forEach((path, text) -> md5s.put(path, Hashing.md5(text)));
        return md5s;
    }

    @Test
    void aViewOfStepsKeptInOneArrayEqualsTheirOwnDigests() {
        FileDigests beat = FileDigests.ofContents(files("sub_7_host_1", "a", "b"), "sub_7_host_1", intern);
        FileDigests exporter = FileDigests.ofContents(Map.of("etc/sub_7_host_1.yaml", "c"), "sub_7_host_1", intern);
        long[] all = new long[6];
        assertThat(exporter.copyMd5s(all, beat.copyMd5s(all, 0))).isEqualTo(6);

        FileDigests beatView = FileDigests.view(beat.paths(), "sub_7_host_1", all, 0);
        FileDigests exporterView = FileDigests.view(exporter.paths(), "sub_7_host_1", all, 4);
        assertThat(beatView).isEqualTo(beat).isEqualTo(md5s(files("sub_7_host_1", "a", "b"))).hasSize(2);
        assertThat(exporterView).isEqualTo(exporter).isEqualTo(Map.of("etc/sub_7_host_1.yaml", Hashing.md5("c")))
                .isNotEqualTo(beatView);
        assertThat(exporter).isEqualTo(exporterView);
        assertThat(exporterView.get("etc/sub_7_host_1.yaml")).isEqualTo(Hashing.md5("c"));
        assertThatThrownBy(() -> FileDigests.view(beat.paths(), "sub_7_host_1", all, 4)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void isTheMapOfPathsToHexMd5s() {
        Map<String, String> files = files("sub_7_host_1", "name: host-1\n", "url: http://10.0.0.1/\n");
        FileDigests digests = FileDigests.ofContents(files, "sub_7_host_1", intern);
        assertThat(digests).isEqualTo(md5s(files)).hasSize(2).containsAllEntriesOf(md5s(files));
        assertThat(md5s(files)).isEqualTo(digests);
        assertThat(digests.hashCode()).isEqualTo(md5s(files).hashCode());
        assertThat(digests.get("usr/local/gse/plugins/etc/beat_script_sub_7_host_1.conf")).isEqualTo(Hashing.md5("name: host-1\n"));
        assertThat(digests.containsKey("usr/local/gse/plugins/etc/beat_script_sub_7_host_2.conf")).isFalse();
        assertThat(digests.get("usr/local/gse/plugins/etc/beat_script_sub_7_host_1.conf.bak")).isNull();
        assertThat(FileDigests.of(md5s(files))).isEqualTo(digests);
        assertThat(digests).isEqualTo(FileDigests.of(md5s(files)));
    }

    @Test
    void aOneCharacterChangeIsDetected() {
        Map<String, String> files = files("sub_7_host_1", "name: host-1\nperiod: 60s\n", "url: http://10.0.0.1/\n");
        FileDigests planned = FileDigests.ofContents(files, "sub_7_host_1", intern);
        Map<String, String> edited = files("sub_7_host_1", "name: host-1\nperiod: 61s\n", "url: http://10.0.0.1/\n");
        FileDigests again = FileDigests.ofContents(edited, "sub_7_host_1", intern);
        assertThat(again).isNotEqualTo(planned);
        assertThat(md5s(edited)).isNotEqualTo(planned);
        assertThat(planned).isNotEqualTo(md5s(edited));
        assertThat(FileDigests.ofContents(files("sub_7_host_1", "name: host-1\nperiod: 60s\n", "url: http://10.0.0.1/\n"),
                "sub_7_host_1", intern)).isEqualTo(planned);

        Map<String, String> deployed = new HashMap<>(md5s(files));
        String path = "usr/local/gse/plugins/etc/beat_script_sub_7_host_1.conf";
        char last = deployed.get(path).charAt(31);
        deployed.put(path, deployed.get(path).substring(0, 31) + (last == '0' ? '1' : '0'));
        assertThat(planned).as("one hex digit of a deployed md5").isNotEqualTo(deployed);
        assertThat(deployed).isNotEqualTo(planned);
    }

    @Test
    void instancesOfAStepShareTheirPathsAndDifferInTheirGroup() {
        FileDigests one = FileDigests.ofContents(files("sub_7_host_1", "a", "b"), "sub_7_host_1", intern);
        FileDigests two = FileDigests.ofContents(files("sub_7_host_2", "a", "b"), "sub_7_host_2", intern);
        assertThat(shared).hasSize(1);
        assertThat(one).isNotEqualTo(two);
        assertThat(two.keySet()).containsExactlyInAnyOrder("usr/local/gse/plugins/etc/beat_script_sub_7_host_2.conf",
                "usr/local/gse/external_plugins/sub_7_host_2/beat/sub_7_host_2.yaml");
        assertThat(two.values()).containsExactlyInAnyOrderElementsOf(one.values());
    }

    @Test
    void aDeployedMd5ThatIsNotHexDiffersAndADesiredOneIsRefused() {
        FileDigests planned = FileDigests.ofContents(Map.of("etc/a.conf", "x"), "g", intern);
        assertThat(planned).isNotEqualTo(Map.of("etc/a.conf", "not an md5"));
        assertThatThrownBy(() -> FileDigests.of(Map.of("etc/a.conf", "not an md5"))).isInstanceOf(IllegalArgumentException.class);
    }
}
