//! Attribute macros for perflab: `#[perflab::measure]` and `#[perflab::main]`.
//!
//! The expansions call `macro_rules!` macros of the `perflab` crate rather
//! than its functions, so that whether probes exist is decided by perflab's
//! `enabled` feature, which this crate cannot see.
#![deny(missing_docs)]
#![warn(unreachable_pub)]

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::{ItemFn, LitStr, ReturnType, Token, Type, parse_macro_input};

/// Optional name: nothing, `"name"` or `name = "name"`.
struct NameArgument {
    name: Option<LitStr>,
}

impl Parse for NameArgument {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Ok(NameArgument { name: None });
        }
        if input.peek(LitStr) {
            let name = input.parse()?;
            return finish(input, name);
        }
        let key: syn::Ident = input.parse()?;
        if key != "name" {
            return Err(syn::Error::new(
                key.span(),
                "expected `name = \"...\"` or a string literal",
            ));
        }
        input.parse::<Token![=]>()?;
        if !input.peek(LitStr) {
            return Err(input.error("the span name must be a string literal: `name = \"parse\"`"));
        }
        let name = input.parse()?;
        finish(input, name)
    }
}

fn finish(input: ParseStream, name: LitStr) -> syn::Result<NameArgument> {
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the name"));
    }
    if name.value().is_empty() {
        return Err(syn::Error::new(name.span(), "a span name cannot be empty"));
    }
    Ok(NameArgument { name: Some(name) })
}

/// Measures a function, method or async function as a span.
///
/// The span is named `module::path::function` unless a name is given:
/// `#[measure("parse")]` or `#[measure(name = "parse")]`. An async function
/// is measured from first poll to completion, with the time inside polls
/// and the number of polls beside it.
#[proc_macro_attribute]
pub fn measure(attribute: TokenStream, item: TokenStream) -> TokenStream {
    let argument = parse_macro_input!(attribute as NameArgument);
    let function = match measurable_function(item, "measure") {
        Ok(function) => function,
        Err(error) => return error.to_compile_error().into(),
    };
    if let Some(constness) = &function.sig.constness {
        return syn::Error::new(
            constness.span,
            "#[perflab::measure] cannot measure a `const fn`: it may run at compile time, where there is no clock; \
             measure the function that calls it, or remove `const`",
        )
        .to_compile_error()
        .into();
    }
    expand_measure(argument, function).into()
}

/// The function an attribute is on, or an error saying what it is on instead.
fn measurable_function(item: TokenStream, attribute: &str) -> syn::Result<ItemFn> {
    if let Ok(function) = syn::parse::<ItemFn>(item.clone()) {
        return Ok(function);
    }
    if let Ok(declaration) = syn::parse::<syn::TraitItemFn>(item.clone()) {
        return Err(syn::Error::new(
            declaration.sig.ident.span(),
            format!(
                "#[perflab::{attribute}] needs a function body, and a trait's method declaration has none; \
                 put it on the method in each `impl`, or on a default body"
            ),
        ));
    }
    let what = match syn::parse::<syn::Item>(item.clone()) {
        Ok(syn::Item::Struct(_)) => "a struct",
        Ok(syn::Item::Enum(_)) => "an enum",
        Ok(syn::Item::Impl(_)) => "an `impl` block (put it on each method instead)",
        Ok(syn::Item::Trait(_)) => "a trait",
        Ok(syn::Item::Mod(_)) => "a module",
        Ok(syn::Item::Const(_) | syn::Item::Static(_)) => "a constant or static",
        _ => "this item",
    };
    Err(syn::Error::new(
        proc_macro2::TokenStream::from(item)
            .into_iter()
            .next()
            .map_or_else(Span::call_site, |token| token.span()),
        format!("#[perflab::{attribute}] goes on a function or method, not on {what}"),
    ))
}

fn expand_measure(argument: NameArgument, function: ItemFn) -> proc_macro2::TokenStream {
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
    } = function;
    let ident = &sig.ident;
    // Spanned at the function's name so that `line!()` in the call site
    // points at the function, not at the attribute.
    let span = ident.span();
    let name = match &argument.name {
        Some(name) => quote!(#name),
        None => {
            let ident_text = ident.to_string();
            quote_spanned!(span=> ::core::concat!(::core::module_path!(), "::", #ident_text))
        }
    };
    if sig.asyncness.is_some() {
        let statements = &block.stmts;
        let return_hint = return_type_hint(&sig.output);
        quote_spanned! {span=>
            #(#attrs)*
            #vis #sig {
                ::perflab::__measure_future!(#name, async move {
                    #return_hint
                    #(#statements)*
                })
                .await
            }
        }
    } else {
        quote_spanned! {span=>
            #(#attrs)*
            #vis #sig {
                let __perflab_span = ::perflab::__enter_function!(#name);
                #block
            }
        }
    }
}

/// An unreachable early return of the declared type, so that `?` inside the
/// async block knows which error type to convert to. Omitted for
/// `impl Trait` return types, which cannot be named in a `let`.
fn return_type_hint(output: &ReturnType) -> proc_macro2::TokenStream {
    let ReturnType::Type(_, ty) = output else {
        return quote!();
    };
    if contains_impl_trait(ty) {
        return quote!();
    }
    quote! {
        #[allow(unreachable_code, clippy::diverging_sub_expression, clippy::needless_return)]
        if false {
            let __perflab_return: #ty = loop {};
            return __perflab_return;
        }
    }
}

fn contains_impl_trait(ty: &Type) -> bool {
    let text = quote!(#ty).to_string();
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|word| word == "impl")
}

/// Runs `main` inside a process-wide `perflab::Session`, which prints the
/// span table and writes the profile when main returns, and also when the
/// program calls `std::process::exit`. `#[perflab::main(name = "...")]`
/// names the session.
#[proc_macro_attribute]
pub fn main(attribute: TokenStream, item: TokenStream) -> TokenStream {
    let argument = parse_macro_input!(attribute as NameArgument);
    let function = match measurable_function(item, "main") {
        Ok(function) => function,
        Err(error) => return error.to_compile_error().into(),
    };
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
    } = function;
    let start = match argument.name {
        Some(name) => quote!(::perflab::Session::builder().name(#name).start()),
        None => quote!(::perflab::Session::start()),
    };
    let span = Span::call_site();
    quote_spanned! {span=>
        #(#attrs)*
        #vis #sig {
            let __perflab_session = #start;
            #block
        }
    }
    .into()
}
