/**
 * `<st-sweep-setup .fields=${schema} .table=${t} .spaceOf=${defaultSpace} .planner=${planSweep}>`:
 * the sweep form — label, features (all by default), filter, validation share or table, model,
 * the search space as JSON (the model's defaults filled in), strategy and its knobs (η, min/max
 * resource), trials, parallelism, seed, a warm start from an Optuna journal (with its study when it
 * holds several; "seeded N trials, best value V" once read) — validated as you type (form errors
 * here, the engine's through `planner`) with what the plan will cost. Fires `sweep-start`
 * (SweepConfig) on submit.
 * `initial` (set by the owner for Clone and edit) refills the form.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import {
  defaultForm,
  draftConfig,
  formFromConfig,
  STRATEGIES,
  type SweepForm,
  type SweepTableRef,
  warmStartLine,
} from './sweep-draft.ts'
import { readJournal } from '../tune/optuna.ts'
import { DEFAULT_FAMILY, FAMILY_MENU, familyOf } from '../models/registry.ts'
import { maximize } from '../eval/metrics.ts'
import { labelCandidates } from './train-panel.ts'
import './feature-picker.ts'
import type { AdapterView, StructField, SweepConfig, SweepModel, SweepPlanView } from './types.ts'
import {
  minutesText,
  readRate,
  stepsMinutesText,
  softwareNote,
  sweepBatch,
  sweepMaxResourceFor,
} from './adapter-defaults.ts'
import { pickedText } from './file-pick.ts'

/** How the metric menu names a sweep metric (any other: 'maximise' or 'minimise' and its name, metricLabel). */
const METRIC_LABELS: Record<string, string> = {
  auc: 'maximise AUC',
  logloss: 'minimise logloss',
  gauc: 'maximise grouped AUC (gauc_group)',
}

/** The menu's words for `metric`: its own label, else the way it is optimised (src/eval/metrics.ts maximize) and its name. */
export function metricLabel(metric: string): string {
  return METRIC_LABELS[metric] ?? `${maximize(metric) ? 'maximise' : 'minimise'} ${metric}`
}

/** "what this will cost" line of a plan. */
export function costText(p: SweepPlanView, model: SweepModel): string {
  const unit = familyOf(model).resource.many
  const share =
    p.resourceFullBudget > 0 ? ` (${Math.round((p.resourceTotal / p.resourceFullBudget) * 100)}% of it)` : ''
  return `${p.trials} trial runs in ${p.brackets.length} bracket${p.brackets.length === 1 ? '' : 's'} · ${p.resourceTotal} ${unit} in total vs ${p.resourceFullBudget} at full budget${share}`
}

@customElement('st-sweep-setup')
export class StSweepSetup extends LitElement {
  static styles = [
    baseStyles,
    css`
    form { display: grid; gap: 8px 10px; grid-template-columns: max-content minmax(0, 1fr); align-items: center; }
    .full { grid-column: 1 / -1; }
    textarea { font-family: var(--st-mono, ui-monospace, monospace); font-size: 12px; min-height: 160px; width: 100%; box-sizing: border-box; }
    .knobs { display: flex; flex-wrap: wrap; gap: 6px 14px; }
    .knobs input { width: 5em; }
    ul.errors { color: var(--st-error, #c62828); margin: 0; padding-left: 18px; }
    .cost, .seeded { font-variant-numeric: tabular-nums; }
  `,
  ]

  @property({ attribute: false }) fields: StructField[] = []
  @property({ attribute: false }) table?: SweepTableRef
  /** The model's default search space (window.snaptrain.defaultSpace). */
  @property({ attribute: false }) spaceOf?: (model: SweepModel) => Record<string, unknown>
  /** The engine's validation and cost plan (window.snaptrain.planSweep). */
  @property({ attribute: false }) planner?: (config: SweepConfig) => SweepPlanView
  /** A config to refill the form with (Clone and edit). */
  @property({ attribute: false }) initial?: SweepConfig
  @property({ type: Boolean }) busy = false
  /** The page's adapter: a software one gets a smaller default budget (adapter-defaults.ts) and minutes from its measured rate. */
  @property({ attribute: false }) adapter?: AdapterView
  /** Live rows of the open table (its log's stats), when known: the recommender's epochs become steps and minutes. */
  @property({ type: Number }) rows?: number

  @state() form?: SweepForm

  private get columns(): string[] {
    return this.fields.map(f => f.name)
  }

  protected willUpdate(changed: Map<PropertyKey, unknown>): void {
    const init = this.initial
    if (changed.has('initial') && init) this.form = formFromConfig(init, this.columns, this.space(init.model))
    else if (!this.form || (changed.has('fields') && !this.fits(this.form))) {
      // A clone whose table opened after the form was filled: fill it again against that schema.
      if (init && this.columns.includes(init.label))
        this.form = formFromConfig(init, this.columns, this.space(init.model))
      else this.reset(this.form?.model ?? DEFAULT_FAMILY)
    }
    // The adapter answers after the first render: a software one's smaller budget, unless one was typed.
    const form = this.form
    if (changed.has('adapter') && form && form.maxResource === '' && !this.initial)
      this.form = { ...form, maxResource: sweepMaxResourceFor(form.model, this.adapter) }
  }

  render() {
    const f = this.form!
    const { config, errors } = this.table
      ? draftConfig(f, this.table, this.columns)
      : { config: undefined, errors: ['no table is open'] }
    const plan = config ? this.plan(config) : undefined
    const all = [...errors, ...(plan?.errors ?? [])]
    const labels = labelCandidates(this.fields)
    return html`<h2>Sweep setup</h2><form novalidate @submit=${(e: Event) => this.submit(e, config, all)}>
      <label for="model">Model</label>
      <select id="model" @change=${(e: Event) => this.reset((e.target as HTMLSelectElement).value as SweepModel)}>
        ${FAMILY_MENU.map(d => html`<option value=${d.name} ?selected=${d.name === f.model}>${d.label}</option>`)}</select>
      <label for="label">Label</label>
      <select id="label" @change=${(e: Event) => this.set({ label: (e.target as HTMLSelectElement).value })}>
        ${labels.map(n => html`<option value=${n} ?selected=${n === f.label}>${n}</option>`)}</select>
      <span>Features</span><st-feature-picker .columns=${this.columns.filter(c => c !== f.label)} .chosen=${f.features}
        @features-change=${(e: CustomEvent<string[]>) => this.set({ features: e.detail })}></st-feature-picker>
      <label for="filter">Filter</label>
      <input id="filter" placeholder="e.g. age > 30 (optional)" .value=${f.filter} @input=${this.text('filter')}>
      <span>Validation</span><span>
        <select id="valid-mode" @change=${this.text('validMode')}>
          <option value="fraction" ?selected=${f.validMode === 'fraction'}>share of rows</option>
          <option value="table" ?selected=${f.validMode === 'table'}>another table</option></select>
        ${
          f.validMode === 'fraction'
            ? html`<input id="valid-fraction" type="number" step="0.05" min="0.01" max="0.99" .value=${f.validFraction} @input=${this.text('validFraction')}>`
            : html`<input id="valid-table" placeholder="table URL" .value=${f.validTable} @input=${this.text('validTable')}>`
        }</span>
      <label for="space">Search space</label>
      <textarea id="space" spellcheck="false" .value=${f.spaceText} @input=${this.text('spaceText')}></textarea>
      <span>Strategy</span>${this.knobs(f)}
      <label for="warm-journal">Warm start from an Optuna journal</label>${this.warmStart(f)}
      <label for="name">Name</label><input id="name" placeholder="optional" .value=${f.name} @input=${this.text('name')}>
      ${config?.warmStart && !all.length ? html`<div class="full seeded" data-seeded=${config.warmStart.trials.length}>Warm start: ${warmStartLine(config.warmStart, config)}</div>` : nothing}
      <div class="full">${
        all.length
          ? html`<ul class="errors" role="alert">${all.map(e => html`<li>${e}</li>`)}</ul>`
          : plan
            ? html`<div class="cost" data-trials=${plan.trials}>What this will cost: ${costText(plan, f.model)}${this.minutes(plan, config!)}</div>`
            : nothing
      }${softwareNote(this.adapter, 'sweep') ? html`<p class="muted software">${softwareNote(this.adapter, 'sweep')}</p>` : nothing}</div>
      <div class="full"><button type="submit" ?disabled=${this.busy || all.length > 0}>Start sweep</button></div>
    </form>`
  }

  /**
   * " · about 9 min (…)" from this adapter's measured rate: rounds, or the recommender's epochs
   * turned into steps with the table's rows and the space's batch size (its smallest: an upper bound).
   */
  private minutes(plan: SweepPlanView, config: SweepConfig): string {
    const rate = readRate(this.adapter, config.model)
    const m =
      familyOf(config.model).resource.param === 'num_round'
        ? minutesText(plan.resourceTotal, 'round', config.model, rate)
        : stepsMinutesText(
            config.model,
            {
              rows: this.rows,
              ...sweepBatch(config.model, config.space, config.fixed),
              epochs: plan.resourceTotal,
              validFraction: config.validFraction,
            },
            rate,
          )
    return m ? ` · ${m}, one trial at a time` : ''
  }

  private knobs(f: SweepForm) {
    const input = (id: keyof SweepForm, label: string) => html`<label>${label}
      <input id=${id} type="number" placeholder="default" .value=${f[id] as string} @input=${this.text(id)}></label>`
    return html`<div class="knobs">
      <select id="strategy" @change=${this.text('strategy')}>${STRATEGIES.map(s => html`<option value=${s} ?selected=${s === f.strategy}>${s}</option>`)}</select>
      ${input('eta', 'η')}${input('minResource', 'min resource')}${input('maxResource', 'max resource')}
      ${input('trials', 'trials')}${input('parallel', 'parallel')}${input('seed', 'seed')}
      <select id="metric" @change=${this.text('metric')}>${
        // '' = the objective's own (sweep/plan.ts sweepMetric), then the family's metrics (registry):
        // grouped AUC (gauc_group fixed in the space) only for the recommender.
        html`<option value="" ?selected=${f.metric === ''}>the objective's default metric</option>`
      }${familyOf(f.model).metrics.map(
        m => html`<option value=${m} ?selected=${f.metric === m}>${metricLabel(m)}</option>`,
      )}</select></div>`
  }

  /** The journal file input, what is loaded (with a clear button) and, for a journal of several studies, the study to read. */
  private warmStart(f: SweepForm) {
    const studies = f.journal ? this.studyNames(f.journal) : []
    return html`<span>
      <input id="warm-journal" type="file" accept=".log,.jsonl,.txt,text/plain" @change=${this.loadJournal}>
      ${f.journal ? html`<span class="journal">${f.journal.name}</span> <button type="button" class="clear-journal" @click=${() => this.set({ journal: undefined, journalStudy: '' })}>no warm start</button>` : nothing}
      ${
        studies.length > 1
          ? html`<label>study <select id="warm-study" @change=${this.text('journalStudy')}>
              <option value="" ?selected=${f.journalStudy === ''}>choose one of ${studies.length}</option>
              ${studies.map(n => html`<option value=${n} ?selected=${n === f.journalStudy}>${n}</option>`)}</select></label>`
          : nothing
      }</span>`
  }

  private async loadJournal(e: Event) {
    const journal = await pickedText(e)
    if (journal) this.set({ journal, journalStudy: '' })
  }

  /** The study names of journal `j`; none when it does not read (draftConfig reports why). */
  private studyNames(j: { name: string; text: string }): string[] {
    if (this.studiesOf?.text !== j.text) {
      let names: string[] = []
      try {
        names = readJournal(j.text, j.name).map(s => s.name)
      } catch {
        // draftConfig's warm start reads it again and shows the error.
      }
      this.studiesOf = { text: j.text, names }
    }
    return this.studiesOf.names
  }

  private studiesOf?: { text: string; names: string[] }

  /** True when `f`'s label and features are columns of the current schema (another version of the same table). */
  private fits(f: SweepForm): boolean {
    const cols = new Set(this.columns)
    return cols.has(f.label) && f.features.every(c => cols.has(c))
  }

  private plan(config: SweepConfig): SweepPlanView | undefined {
    if (!this.planner) return undefined
    try {
      return this.planner(config)
    } catch (e) {
      return {
        errors: [`planning the sweep: ${(e as Error).message}`],
        trials: 0,
        brackets: [],
        resourceTotal: 0,
        resourceFullBudget: 0,
      }
    }
  }

  private space(model: SweepModel): Record<string, unknown> {
    try {
      return this.spaceOf?.(model) ?? {}
    } catch {
      return {}
    }
  }

  /** A fresh form for `model` (model change or a new table): defaults, every feature chosen. */
  private reset(model: SweepModel) {
    const label =
      labelCandidates(this.fields).find(l => l === this.form?.label) ?? labelCandidates(this.fields)[0] ?? ''
    // An uploaded journal stays: it is checked against the new model's space and metric.
    this.form = {
      ...defaultForm(
        model,
        this.space(model),
        label,
        this.columns.filter(c => c !== label),
      ),
      journal: this.form?.journal,
      journalStudy: this.form?.journalStudy ?? '',
      maxResource: sweepMaxResourceFor(model, this.adapter),
    }
  }

  private set(part: Partial<SweepForm>) {
    const old = this.form!,
      next = { ...old, ...part }
    // A new label leaves the features; the old one becomes a (chosen) feature again.
    if (part.label !== undefined && part.label !== old.label)
      next.features = [...old.features.filter(c => c !== part.label), ...(old.label ? [old.label] : [])]
    this.form = next
  }

  private text(key: keyof SweepForm) {
    return (e: Event) => this.set({ [key]: (e.target as HTMLInputElement).value } as Partial<SweepForm>)
  }

  private submit(e: Event, config: SweepConfig | undefined, errors: string[]) {
    e.preventDefault()
    if (!config || errors.length) return
    this.dispatchEvent(new CustomEvent('sweep-start', { detail: config, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-sweep-setup': StSweepSetup
  }
  interface HTMLElementEventMap {
    'sweep-start': CustomEvent<SweepConfig>
  }
}
