import { fieldKind, setRaw, type JsonSchema, type RawObject, type RawValue } from '../lib/schemaForm';

interface FieldProps {
  name: string;
  path: string;
  schema: JsonSchema;
  raw: RawValue | undefined;
  required: boolean;
  errors: Record<string, string>;
  onChange: (path: string, v: RawValue) => void;
}

function Field({ name, path, schema, raw, required, errors, onChange }: FieldProps) {
  const kind = fieldKind(schema);
  const id = `f-${path.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  const err = errors[path];
  const hint = [
    schema.description,
    schema.minimum != null ? `min ${schema.minimum}` : '',
    schema.maximum != null ? `max ${schema.maximum}` : '',
    schema.minLength != null ? `≥ ${schema.minLength} chars` : '',
    schema.pattern ? `pattern ${schema.pattern}` : '',
    schema.default !== undefined ? `default ${JSON.stringify(schema.default)}` : '',
    schema.writeOnly ? 'secret: stored masked' : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const label = (
    <span className="field-label">
      {schema.title ?? name}
      {required && <span className="req" aria-label="required"> *</span>}
      <span className="small muted"> {kind === 'json' ? 'JSON' : kind === 'array' ? 'list, one per line' : kind}</span>
    </span>
  );
  if (kind === 'object') {
    const sub = raw && typeof raw === 'object' ? raw : {};
    const req = new Set(schema.required ?? []);
    return (
      <fieldset className="nested" data-testid={`field-${path}`}>
        <legend>{label}</legend>
        {schema.description && <div className="small muted">{schema.description}</div>}
        {Object.entries(schema.properties ?? {}).map(([k, s]) => (
          <Field key={k} name={k} path={`${path}.${k}`} schema={s} raw={sub[k]} required={req.has(k)} errors={errors} onChange={onChange} />
        ))}
      </fieldset>
    );
  }
  let input;
  if (kind === 'boolean') {
    input = <input id={id} type="checkbox" checked={raw === true} onChange={(e) => onChange(path, e.target.checked)} />;
  } else if (kind === 'enum') {
    input = (
      <select id={id} value={typeof raw === 'string' ? raw : ''} onChange={(e) => onChange(path, e.target.value)}>
        <option value="">{required ? '— choose —' : '— none —'}</option>
        {(schema.enum ?? []).map((o, i) => (
          <option key={i} value={String(i)}>
            {typeof o === 'string' ? o : JSON.stringify(o)}
          </option>
        ))}
      </select>
    );
  } else if (kind === 'array' || kind === 'json') {
    input = <textarea id={id} rows={kind === 'json' ? 4 : 3} className="mono" value={typeof raw === 'string' ? raw : ''} onChange={(e) => onChange(path, e.target.value)} spellCheck={false} />;
  } else {
    input = (
      <input
        id={id}
        type={schema.writeOnly ? 'password' : 'text'}
        inputMode={kind === 'integer' ? 'numeric' : kind === 'number' ? 'decimal' : undefined}
        autoComplete="off"
        value={typeof raw === 'string' ? raw : ''}
        onChange={(e) => onChange(path, e.target.value)}
      />
    );
  }
  return (
    <div className={`field ${err ? 'has-error' : ''}`} data-testid={`field-${path}`}>
      <label htmlFor={id}>{label}</label>
      {input}
      {hint && <div className="small muted">{hint}</div>}
      {err && (
        <div className="field-error" role="alert">
          {err}
        </div>
      )}
    </div>
  );
}

export function SchemaForm({ schema, raw, errors, onChange }: { schema: JsonSchema; raw: RawObject; errors: Record<string, string>; onChange: (raw: RawObject) => void }) {
  const req = new Set(schema.required ?? []);
  const props = Object.entries(schema.properties ?? {});
  if (!props.length) return <p className="muted">This addon takes no parameters.</p>;
  return (
    <div className="schema-form" data-testid="schema-form">
      {props.map(([k, s]) => (
        <Field key={k} name={k} path={k} schema={s} raw={raw[k]} required={req.has(k)} errors={errors} onChange={(p, v) => onChange(setRaw(raw, p, v))} />
      ))}
    </div>
  );
}
