# Produces jinja2_cases.json: what Jinja2 (python3-jinja2 3.1) renders for each template; run with python3 > jinja2_cases.json
import json, jinja2
ctx = {"host": {"ip": "10.0.0.5", "labels": {"zone": "b", "env": "prod", "a<b": "x&y'"}, "ports": [9102, 80, 443], "enabled": True, "extra": None, "name": "Web-01", "ratio": 0.5, "count": 3, "unicode": "caf\u00e9"}}
cases = [
 ("tojson", "{{ host.labels | tojson }}"),
 ("tojson_list", "{{ host.ports | tojson }}"),
 ("tojson_scalars", "{{ host.enabled | tojson }} {{ host.extra | tojson }} {{ host.ratio | tojson }} {{ host.unicode | tojson }}"),
 ("min_max", "{{ host.ports | min }} {{ host.ports | max }}"),
 ("bool_print", "{{ host.enabled }} {{ host.extra }} {{ not host.enabled }}"),
 ("list_print", "{{ host.ports }}"),
 ("dict_print", "{{ {'a': 1} }}"),
 ("upper_lower", "{{ host.name.upper() }} {{ host.name.lower() }} {{ host.name.startswith('Web') }} {{ host.name | upper }}"),
 ("for_dict", "{% for k, v in host.labels | dictsort %}{{ k }}={{ v }};{% endfor %}"),
 ("join_sort", "{{ host.ports | sort | join(',') }}"),
 ("default", "{{ host.missing | default('none') }}"),
 ("replace_trim", "{{ '  a-b  ' | trim | replace('-', '_') }}"),
 ("trailing_newline", "line\n"),
 ("arith", "{{ host.count * 2 }} {{ host.count / 2 }} {{ host.count // 2 }} {{ host.ratio * 2 }}"),
 ("loop_index", "{% for p in host.ports %}{{ loop.index }}:{{ p }}{% if not loop.last %},{% endif %}{% endfor %}"),
 ("ternary", "{{ 'yes' if host.enabled else 'no' }}"),
 ("none_tests", "{% if host.extra %}a{% else %}b{% endif %} {{ host.extra is none }} {{ host.ip is none }} {{ host.extra | tojson }}"),
 ("str_methods", "{{ host.ip.split('.') | join('-') }} {{ host.ip.startswith('10.') }} {{ '--x--'.strip('-') }} {{ 'hello world'.title() }} {{ ' a b '.split() }}"),
 ("str_more", "{{ 'a,b,,c'.split(',') }} {{ 'x'.join(['1', '2']) }} {{ 'aaa'.count('a') }} {{ 'abc'.find('c') }} {{ '42'.isdigit() }} {{ 'mIxed'.capitalize() }}"),
]
env = jinja2.Environment(undefined=jinja2.StrictUndefined)
out = {"context": ctx, "cases": []}
for name, src in cases:
    out["cases"].append({"name": name, "template": src, "expected": env.from_string(src).render(**ctx)})
print(json.dumps(out, indent=2, ensure_ascii=False))
