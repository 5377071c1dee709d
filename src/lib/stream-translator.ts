// The one shape of a pure stream translator, in every direction (vendor ->
// neutral in providers, neutral -> wire in facades): each input event gives
// the output events it implies, and the end of the input gives what is left.
export interface StreamTranslator<In, Out> {
  push(event: In): Out[];
  end(): Out[];
}
